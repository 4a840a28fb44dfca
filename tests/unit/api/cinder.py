"""What the Cinder API tests share: a client's volume API base path."""

from provisioner.identity import service as identity_service


def base(client):
    """/volume/v3/<the client's token's project>."""
    return '/volume/v3/%s' % identity_service.validate(client.token).project_id
