"""Images: the per-host cache of verified image files."""
