"""Compute v2.1 (Nova's API), with microversions 2.1 to compute.service.MAX_VERSION."""
