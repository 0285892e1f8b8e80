"""The `jabba` command line."""
