"""Image v2 members (Glance's image sharing): /v2/images/{id}/members.

The owner of a ``shared`` image adds projects as members (pending), lists and
removes them; a member sees its own membership and answers it (accepted, rejected
or pending). The rules are CatalogAPI's.
"""

from provisioner.api.image import schemas
from provisioner.api.image import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api

def _catalog(req):
    return catalog_api.CatalogAPI(req.context, None)


@wsgi.route('POST', '/v2/images/{image_id}/members')
@validation.schema(schemas.MEMBER)
def add_member(req, image_id, body):
    member = _catalog(req).add_image_member(image_id, body['member'])
    return wsgi.json_response(views.member_view(member))


@wsgi.route('GET', '/v2/images/{image_id}/members')
def list_members(req, image_id):
    members = _catalog(req).list_image_members(image_id)
    return wsgi.json_response({'members': [views.member_view(m) for m in members],
                               'schema': '/v2/schemas/members'})


@wsgi.route('GET', '/v2/images/{image_id}/members/{member_id}')
def show_member(req, image_id, member_id):
    return wsgi.json_response(views.member_view(
        _catalog(req).show_image_member(image_id, member_id)))


@wsgi.route('PUT', '/v2/images/{image_id}/members/{member_id}')
@validation.schema(schemas.MEMBER_STATUS)
def update_member(req, image_id, member_id, body):
    member = _catalog(req).set_image_member_status(image_id, member_id, body['status'])
    return wsgi.json_response(views.member_view(member))


@wsgi.route('DELETE', '/v2/images/{image_id}/members/{member_id}')
def remove_member(req, image_id, member_id):
    _catalog(req).remove_image_member(image_id, member_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v2/schemas/member')
def member_schema(req):
    return wsgi.json_response(views.member_schema())


@wsgi.route('GET', '/v2/schemas/members')
def members_schema(req):
    return wsgi.json_response(views.members_schema())
