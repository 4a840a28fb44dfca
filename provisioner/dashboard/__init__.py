"""The web dashboard: served by provisioner-api at /dashboard, built on its REST API."""
