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
    policy.DocumentedRuleDefault('image:upload', base.PROJECT_MEMBER + ' or role:service',
                                 'Upload the data of an image of the project (the '
                                 'service role of hosts\' workers, a server\'s '
                                 'snapshot: any image).',
                                 _api('PUT', '/image/v2/images/{image_id}/file')),
    policy.DocumentedRuleDefault('image:download', base.ANY_ROLE + ' or role:service',
                                 'Download the data of an image the caller sees '
                                 '(the service role of hosts\' workers: any '
                                 'image).',
                                 _api('GET', '/image/v2/images/{image_id}/file')),
    policy.DocumentedRuleDefault('image:set_owner', base.ADMIN,
                                 'Give an image to another project (its owner).',
                                 _api('PATCH', '/image/v2/images/{image_id}')),
    policy.DocumentedRuleDefault('image:add_member', base.PROJECT_MEMBER,
                                 'Share an image of the project with another '
                                 'project, list or remove its members.',
                                 _api('POST', '/image/v2/images/{image_id}/members')
                                 + _api('DELETE', '/image/v2/images/{image_id}/members/'
                                                  '{member_id}')),
    policy.DocumentedRuleDefault('image:deactivate', base.PROJECT_MEMBER,
                                 'Deactivate an image of the project: its data can '
                                 'no longer be downloaded or booted.',
                                 _api('POST', '/image/v2/images/{image_id}/actions/'
                                              'deactivate')),
    policy.DocumentedRuleDefault('image:reactivate', base.PROJECT_MEMBER,
                                 'Reactivate a deactivated image of the project.',
                                 _api('POST', '/image/v2/images/{image_id}/actions/'
                                              'reactivate')),
    policy.DocumentedRuleDefault('image:download:deactivated', base.ADMIN,
                                 'Download the data of a deactivated image.',
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



def _owned_rules(resource, path):
    """Neutron's defaults: a project member makes and changes its project's own."""
    return [policy.DocumentedRuleDefault('%s:%s' % (resource, action), base.PROJECT_MEMBER,
                                         '%s a %s of the project.' % (what, resource),
                                         _api(method, path + suffix))
            for action, what, method, suffix in (
                ('create', 'Create', 'POST', ''),
                ('update', 'Change', 'PUT', '/{%s_id}' % resource),
                ('delete', 'Delete', 'DELETE', '/{%s_id}' % resource))]


_network_rules = [
    policy.DocumentedRuleDefault('network:create', base.PROJECT_MEMBER,
                                 'Create a network of the project.',
                                 _api('POST', '/network/v2.0/networks')),
    policy.DocumentedRuleDefault('network:create:shared', base.ADMIN,
                                 'Share a network with every project (the CLI\'s '
                                 'network create makes shared networks).',
                                 base.cli('network create')
                                 + _api('POST', '/network/v2.0/networks')),
    policy.DocumentedRuleDefault('network:create:provider', base.ADMIN,
                                 'Name the segment of a network (Neutron\'s '
                                 'provider:network_type and provider:segmentation_id).',
                                 _api('POST', '/network/v2.0/networks')),
    policy.DocumentedRuleDefault('network:create:external', base.ADMIN,
                                 'Make a network external (Neutron\'s router:external: '
                                 'routers\' gateways and floating IPs come from it), '
                                 'or not.',
                                 _api('POST', '/network/v2.0/networks')
                                 + _api('PUT', '/network/v2.0/networks/{network_id}')),
    policy.DocumentedRuleDefault('router:gateway:admin_attributes', base.ADMIN,
                                 'Set enable_snat or choose external_fixed_ips of a '
                                 'router\'s external gateway.',
                                 _api('PUT', '/network/v2.0/routers/{router_id}')),
    policy.DocumentedRuleDefault('floatingip:create:floating_ip_address', base.ADMIN,
                                 'Choose the address of a new floating IP.',
                                 _api('POST', '/network/v2.0/floatingips')),
    policy.DocumentedRuleDefault('floatingip:list', base.ANY_ROLE,
                                 'List the project\'s floating IPs (an admin: all).',
                                 _api('GET', '/network/v2.0/floatingips')),
    policy.DocumentedRuleDefault('floatingip:show', base.ANY_ROLE,
                                 'Show a floating IP of the project.',
                                 _api('GET', '/network/v2.0/floatingips/{id}')),
    policy.DocumentedRuleDefault('network:show:provider', base.ADMIN,
                                 'See the segment of a network (Neutron\'s provider '
                                 'attributes).',
                                 _api('GET', '/network/v2.0/networks/{network_id}')),
    policy.DocumentedRuleDefault('network:update', base.PROJECT_MEMBER,
                                 'Rename a network of the project.',
                                 _api('PUT', '/network/v2.0/networks/{network_id}')),
    policy.DocumentedRuleDefault('network:delete', base.PROJECT_MEMBER,
                                 'Delete an unused network of the project (networks '
                                 'without a project: admin only).',
                                 base.cli('network delete')
                                 + _api('DELETE', '/network/v2.0/networks/{network_id}')),
    policy.DocumentedRuleDefault('network:list', base.ANY_ROLE,
                                 'List the networks the caller sees (shared ones and '
                                 'the project\'s), their subnets and ports.',
                                 base.cli('network list')),
    policy.DocumentedRuleDefault('network:show', base.ANY_ROLE,
                                 'Show a network or subnet the caller sees.',
                                 base.cli('network show')),
    policy.DocumentedRuleDefault('port:list', base.ANY_ROLE,
                                 'List the project\'s ports (an admin: all ports).',
                                 _api('GET', '/network/v2.0/ports')),
    policy.DocumentedRuleDefault('port:show', base.ANY_ROLE,
                                 'Show a port of the project.',
                                 _api('GET', '/network/v2.0/ports/{port_id}')),
    policy.DocumentedRuleDefault('security_group:list', base.ANY_ROLE,
                                 'List the project\'s security groups and their rules '
                                 '(an admin: all of them).',
                                 _api('GET', '/network/v2.0/security-groups')),
    policy.DocumentedRuleDefault('security_group:show', base.ANY_ROLE,
                                 'Show a security group or rule of the project.',
                                 _api('GET', '/network/v2.0/security-groups/{id}')),
] + _owned_rules('subnet', '/network/v2.0/subnets') \
  + _owned_rules('port', '/network/v2.0/ports') \
  + _owned_rules('security_group', '/network/v2.0/security-groups') \
  + _owned_rules('router', '/network/v2.0/routers') \
  + _owned_rules('floatingip', '/network/v2.0/floatingips') \
  + _owned_rules('subnetpool', '/network/v2.0/subnetpools') + [
      policy.DocumentedRuleDefault('subnetpool:list', base.ANY_ROLE,
                                   'List the subnet pools of the project and the '
                                   'shared ones (an admin: all).',
                                   _api('GET', '/network/v2.0/subnetpools')),
      policy.DocumentedRuleDefault('subnetpool:show', base.ANY_ROLE,
                                   'Show a subnet pool of the project or a shared one.',
                                   _api('GET', '/network/v2.0/subnetpools/{subnetpool_id}')),
      policy.DocumentedRuleDefault('subnetpool:create:shared', base.ADMIN,
                                   'Share a subnet pool with every project.',
                                   _api('POST', '/network/v2.0/subnetpools')),
      policy.DocumentedRuleDefault('subnetpool:create:is_default', base.ADMIN,
                                   'Make a subnet pool the default one.',
                                   _api('POST', '/network/v2.0/subnetpools')
                                   + _api('PUT', '/network/v2.0/subnetpools/'
                                                 '{subnetpool_id}')),
      policy.DocumentedRuleDefault('router:list', base.ANY_ROLE,
                                   'List the project\'s routers (an admin: all).',
                                   _api('GET', '/network/v2.0/routers')),
      policy.DocumentedRuleDefault('router:show', base.ANY_ROLE,
                                   'Show a router of the project.',
                                   _api('GET', '/network/v2.0/routers/{router_id}'))]

_rules = (_resource_rules('flavor') + _image_rules + _network_rules + [
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
