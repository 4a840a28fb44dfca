"""The compute API's view builders, one module per resource (Nova's views/): the
response shape of each microversion, from what the services return."""
