"""The local web app of `jabba serve` (app.py) and its static pages (static/)."""
