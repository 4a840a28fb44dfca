"""provisioner: a durable VM provisioning engine."""
