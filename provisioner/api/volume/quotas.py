"""Volume quotas (Cinder's os-quota-sets: show, update, delete), quota classes (the
defaults, read only) and limits.

provisioner's ``volumes_gib`` (provisioner.quota) is Cinder's ``gigabytes`` (over
it: 413 overLimit); ``volumes``, ``snapshots`` and ``per_volume_gigabytes`` are
checked where volumes and snapshots are made (413); ``backups`` and
``backup_gigabytes`` are recorded only (no backups are made). An admin reaches
another project's quotas by its id; to anyone else it reads as not found.
"""

from provisioner.api import validation
from provisioner.api.volume import schemas
from provisioner.api.volume import views
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner.identity import admin
from provisioner import policy
from provisioner.quota import counters
from provisioner.quota import limits
from provisioner.volume import snapshots
from provisioner.volume import volumes


def _usage(project_id):
    gigabytes = {q['resource']: q for q in counters.show(project_id)}['volumes_gib']
    return views.usage(gigabytes, len(volumes.describe(project_id=project_id)),
                       len(snapshots.describe(project_id=project_id)),
                       limits.show(project_id, limits.VOLUME_LIMITS))


def _target(req, project_id, target, action):
    """Check the URL and the policy; another project reads as not found."""
    check_url_project(req, project_id)
    policy.authorize_owned(req.context, action, target, 'Project', target)
    admin.show_project(req.context, target)  # 404 for a project that does not exist


@wsgi.route('GET', '/v3/{project_id}/os-quota-sets/{target}')
def show_quota_set(req, project_id, target):
    _target(req, project_id, target, 'quota:show')
    with_usage = req.GET.get('usage', 'false').lower() in ('1', 'true', 'yes')
    return wsgi.json_response(views.quota_set(target, _usage(target), with_usage))


@wsgi.route('GET', '/v3/{project_id}/os-quota-sets/{target}/defaults')
def show_quota_defaults(req, project_id, target):
    _target(req, project_id, target, 'quota:show')
    return wsgi.json_response(views.defaults(
        target, limits.defaults(limits.VOLUME)['volumes_gib'],
        limits.defaults(limits.VOLUME_LIMITS)))


@wsgi.route('PUT', '/v3/{project_id}/os-quota-sets/{target}')
@validation.schema(schemas.QUOTA_UPDATE)
def update_quota_set(req, project_id, target, body):
    """Set the gigabytes limit (admins); the other keys only to what they already are."""
    _target(req, project_id, target, 'quota:set')
    body = body['quota_set']
    current = _usage(target)
    own = {}
    for key, value in body.items():
        if key in limits.VOLUME_LIMITS:
            own[key] = int(value)
        elif key != 'gigabytes' and (key not in current or value != current[key][0]):
            raise wsgi.HTTPError(400, 'provisioner has no %s quota; it limits '
                                      'gigabytes, %s.'
                                 % (key, ', '.join(limits.VOLUME_LIMITS)))
    if own:
        limits.set_own(target, own, limits.VOLUME_LIMITS_SCHEMA)
    if 'gigabytes' in body:
        counters.set_limits(target, volumes_gib=int(body['gigabytes']))
    return wsgi.json_response(views.quota_set(target, _usage(target), False,
                                              with_id=False))


@wsgi.route('DELETE', '/v3/{project_id}/os-quota-sets/{target}')
def delete_quota_set(req, project_id, target):
    """The project's own volume limits forgotten: the defaults apply again."""
    _target(req, project_id, target, 'quota:set')
    limits.reset(target, limits.VOLUME + limits.VOLUME_LIMITS)
    return wsgi.empty_response(200)


@wsgi.route('GET', '/v3/{project_id}/limits')
def absolute_limits(req, project_id):
    check_url_project(req, project_id)
    policy.authorize_owned(req.context, 'quota:show', project_id, 'Project', project_id)
    return wsgi.json_response(views.absolute_limits(_usage(project_id)))


@wsgi.route('GET', '/v3/{project_id}/os-quota-class-sets/{quota_class}')
def show_quota_class_set(req, project_id, quota_class):
    """Cinder's quota classes: the ``default`` class is the ``[quota]`` defaults
    (any other class name reads as it, as in Cinder)."""
    check_url_project(req, project_id)
    policy.authorize(req.context, 'volume:admin')
    body = views.defaults(quota_class, limits.defaults(limits.VOLUME)['volumes_gib'],
                          limits.defaults(limits.VOLUME_LIMITS))
    return wsgi.json_response({'quota_class_set': body['quota_set']})


@wsgi.route('PUT', '/v3/{project_id}/os-quota-class-sets/{quota_class}')
def update_quota_class_set(req, project_id, quota_class):
    check_url_project(req, project_id)
    policy.authorize(req.context, 'volume:admin')
    raise wsgi.HTTPError(400, "provisioner's default quotas are its [quota] "
                              "configuration; set a project's own limits with "
                              "os-quota-sets.")
