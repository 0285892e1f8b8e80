"""Battle at Sarlacc's Pit (sarlaccs_pit) solved on the shared solver layer
(docs/sarlaccs-pit.md)."""
