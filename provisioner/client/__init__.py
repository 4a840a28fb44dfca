"""The CLI's REST client: provisioner over provisioner-api, with no database access.

With OS_AUTH_URL set, the ``provisioner`` commands authenticate with the identity
service and call the compute, image and network services (and provisioner's
documented extension under compute) instead of the database or the engines: a
client machine needs only the API's URL and a user's credentials.
"""
