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


_rules = (_resource_rules('flavor') + _resource_rules('image')
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
