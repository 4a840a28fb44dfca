"""Members of shared images, as Glance keeps them.

An image of visibility ``shared`` is its owner's, and every project the owner adds
as a member sees it (and boots it) whatever the member answered; it is in the
member's image list once the member accepted it. The owner adds and removes
members; only the member sets its own status. Policy is CatalogAPI's.
"""

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import validation

STATUSES = ('pending', 'accepted', 'rejected')
KIND = 'Image member'
_MEMBER_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255,
              'errorMessage': 'member must be a project id of 1 to 255 characters'}
_STATUS = {'enum': list(STATUSES),
           'errorMessage': 'status must be one of %s, not {value!r}' % ', '.join(STATUSES)}


def _shared(session, image_id):
    row = common.find(session, models.Image, image_id, 'Image')
    if row.visibility != 'shared':
        raise exception.Forbidden(reason='only shared images have members; image %s '
                                         'is %s' % (row.id, row.visibility))
    return row


def _get(session, image_id, member_id):
    member = session.get(models.ImageMember, (image_id, member_id))
    if member is None:
        raise exception.NotFound(kind=KIND, name=member_id)
    return member


def add(image_id, member_id):
    """A pending membership of ``member_id`` in a shared image; Conflict if it has one."""
    validation.check(member_id, _MEMBER_ID)
    with db_api.transaction() as session:
        _shared(session, image_id)
        if session.get(models.ImageMember, (image_id, member_id)) is not None:
            raise exception.Conflict(reason='project %s is already a member of image %s'
                                            % (member_id, image_id))
        member = models.ImageMember(image_id=image_id, member_id=member_id,
                                    status='pending')
        session.add(member)
        session.flush()
        return common.to_dict(member)


def list_of(image_id, member_id=None):
    """An image's members (only ``member_id``'s membership when given)."""
    query = sa.select(models.ImageMember).where(models.ImageMember.image_id == image_id)
    if member_id is not None:
        query = query.where(models.ImageMember.member_id == member_id)
    with db_api.transaction() as session:
        return [common.to_dict(m) for m in session.execute(
            query.order_by(models.ImageMember.created_at)).scalars()]


def show(image_id, member_id):
    with db_api.transaction() as session:
        return common.to_dict(_get(session, image_id, member_id))


def set_status(image_id, member_id, status):
    validation.check(status, _STATUS)
    with db_api.transaction() as session:
        member = _get(session, image_id, member_id)
        member.status = status
        member.updated_at = models.utcnow()
        session.flush()
        return common.to_dict(member)


def remove(image_id, member_id):
    with db_api.transaction() as session:
        session.delete(_get(session, image_id, member_id))


def statuses_of(project_id):
    """{image id: status} of every membership of a project."""
    with db_api.transaction() as session:
        return dict(session.execute(
            sa.select(models.ImageMember.image_id, models.ImageMember.status)
            .where(models.ImageMember.member_id == project_id)).all())


def status_of(image_id, project_id, session=None):
    """The project's membership status in an image; None if not a member. In
    ``session`` when the caller is in a transaction already."""
    if session is None:
        with db_api.transaction() as session:
            return status_of(image_id, project_id, session)
    member = session.get(models.ImageMember, (image_id, project_id))
    return member.status if member is not None else None
