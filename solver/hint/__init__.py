"""The hint engine: a described situation in, advice out; and strategy-table export."""
