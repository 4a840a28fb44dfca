"""Rules for the shared catalog (flavors, images, networks) and hypervisor hosts."""

from oslo_policy import policy

from provisioner.policies import base


def _resource_rules(resource, write=base.ADMIN, read=base.ANY_ROLE):
    return [
        policy.DocumentedRuleDefault('%s:create' % resource, write,
                                     'Create a %s.' % resource,
                                     base.cli('%s create' % resource)),
        policy.DocumentedRuleDefault('%s:delete' % resource, write,
                                     'Delete a %s.' % resource,
                                     base.cli('%s delete' % resource)),
        policy.DocumentedRuleDefault('%s:list' % resource, read,
                                     'List %ss.' % resource,
                                     base.cli('%s list' % resource)),
        policy.DocumentedRuleDefault('%s:show' % resource, read,
                                     'Show a %s.' % resource,
                                     base.cli('%s show' % resource)),
    ]


def _api(method, path):
    return [{'path': path, 'method': method}]


# Glance's defaults: any project member makes and changes its project's images
# (the target's project_id is the image's owner); only an admin publishes one, or
# registers files that are already on the host by path.
_image_rules = [
    policy.DocumentedRuleDefault('image:create', base.PROJECT_MEMBER,
                                 'Create an image (queued, private to the project) '
                                 'to upload data into.',
                                 _api('POST', '/image/v2/images')),
    policy.DocumentedRuleDefault('image:register', base.ADMIN,
                                 'Register an image from files on this host, by '
                                 'path.', base.cli('image create')),
    policy.DocumentedRuleDefault('image:publicize', base.ADMIN,
                                 'Make an image public (visible to every project).',
                                 _api('PATCH', '/image/v2/images/{image_id}')),
    policy.DocumentedRuleDefault('image:upload', base.PROJECT_MEMBER,
                                 'Upload the data of an image of the project.',
                                 _api('PUT', '/image/v2/images/{image_id}/file')),
    policy.DocumentedRuleDefault('image:download', base.ANY_ROLE + ' or role:service',
                                 'Download the data of an image the caller sees '
                                 '(the service role of hosts\' workers: any '
                                 'image).',
                                 _api('GET', '/image/v2/images/{image_id}/file')),
    policy.DocumentedRuleDefault('image:update', base.PROJECT_MEMBER,
                                 'Change the name, properties or visibility of an '
                                 'image of the project.',
                                 _api('PATCH', '/image/v2/images/{image_id}')),
    policy.DocumentedRuleDefault('image:delete', base.PROJECT_MEMBER,
                                 'Delete an image of the project (images registered '
                                 'by path have no project: admin only).',
                                 base.cli('image delete')
                                 + _api('DELETE', '/image/v2/images/{image_id}')),
    policy.DocumentedRuleDefault('image:list', base.ANY_ROLE,
                                 'List the images the caller sees (public ones and '
                                 'the project\'s).', base.cli('image list')),
    policy.DocumentedRuleDefault('image:show', base.ANY_ROLE,
                                 'Show an image the caller sees.',
                                 base.cli('image show')),
]

_rules = (_resource_rules('flavor') + _image_rules
          + _resource_rules('network') + [
              policy.DocumentedRuleDefault('host:list', base.ANY_ROLE,
                                           'List hypervisor hosts.',
                                           base.cli('host list')),
              policy.DocumentedRuleDefault('host:show', base.ANY_ROLE,
                                           'Show a hypervisor host.',
                                           base.cli('host show')),
              policy.DocumentedRuleDefault('host:update', base.ADMIN,
                                           'Enable or disable a host for scheduling, '
                                           'or set its zone and allocation ratios.',
                                           base.cli('host enable|disable|set')),
          ])


def list_rules():
    return _rules
