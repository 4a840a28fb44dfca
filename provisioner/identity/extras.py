"""Keystone's smaller v3 resources, kept and served as Keystone does with its
defaults: endpoint groups (OS-EP-FILTER; no project is associated with one here),
OAuth 1 consumers (OS-OAUTH1; the secret shown once, only its hash kept) and a
domain's configuration (served; domain-specific drivers are off, so it changes
nothing: provisioner has one identity driver, SQL)."""

import copy
import secrets

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import passwords
from provisioner.identity import records
from provisioner import policy

# Keystone's: the groups a domain's configuration may hold, with their defaults.
CONFIG_DEFAULTS = {
    'identity': {'driver': 'sql', 'list_limit': None},
    'ldap': {'url': 'ldap://localhost', 'user': None, 'password': None,
             'suffix': 'cn=example,cn=com', 'query_scope': 'one', 'page_size': 0,
             'user_tree_dn': None, 'group_tree_dn': None}}


def create_endpoint_group(context, name, filters, description=None):
    policy.authorize(context, 'identity:create_endpoint_group')
    with db_api.transaction() as session:
        group = models.EndpointGroup(id=records.new_id(), name=name, filters=filters,
                                     description=description)
        session.add(group)
        return records.as_dict(group)


def create_consumer(context, description=None):
    """A consumer and its secret (shown in this answer only)."""
    policy.authorize(context, 'identity:create_consumer')
    secret = secrets.token_urlsafe(32)
    with db_api.transaction() as session:
        consumer = models.OAuthConsumer(id=records.new_id(), description=description,
                                        secret_hash=passwords.hash_password(secret))
        session.add(consumer)
        return dict(records.as_dict(consumer), secret=secret)


# -- a domain's configuration ---------------------------------------------------------

def _check_groups(config):
    unknown = set(config) - set(CONFIG_DEFAULTS)
    if unknown or not all(isinstance(v, dict) for v in config.values()):
        raise exception.Forbidden(reason='Invalid domain specific configuration: a '
                                         'configuration holds the groups %s, each '
                                         'options and their values'
                                 % ', '.join(sorted(CONFIG_DEFAULTS)))


def _config(session, domain_id, group=None, option=None):
    """The domain's configuration, of one group, of one option: 404 when absent."""
    domain = records.get(session, models.Domain, domain_id, 'Domain')
    config = domain.config
    if not config:
        raise exception.NotFound(kind='Configuration of domain', name=domain_id)
    if group is not None and group not in config:
        raise exception.NotFound(kind='Configuration group', name=group)
    if option is not None and option not in config[group]:
        raise exception.NotFound(kind='Configuration option', name=option)
    return domain, copy.deepcopy(config)


def show_config(context, domain_id, group=None, option=None):
    policy.authorize(context, 'identity:get_domain_config')
    with db_api.transaction() as session:
        config = _config(session, domain_id, group, option)[1]
    if option is not None:
        return {option: config[group][option]}
    return {group: config[group]} if group is not None else config


def create_config(context, domain_id, config):
    """(the configuration, whether it is new): Keystone's PUT replaces it."""
    policy.authorize(context, 'identity:create_domain_config')
    _check_groups(config)
    with db_api.transaction() as session:
        domain = records.get(session, models.Domain, domain_id, 'Domain')
        new = not domain.config
        domain.config = config
        return config, new


def update_config(context, domain_id, changes, group=None, option=None):
    """Merge ``changes`` ({group: {option: value}}, or one group's options, or one
    option's value) into the configuration; the whole of it."""
    policy.authorize(context, 'identity:update_domain_config')
    if option is not None:
        changes = {group: {option: changes.get(option)}}
    elif group is not None and set(changes) != {group}:
        raise exception.Invalid(reason='the body names group %s only' % group)
    _check_groups(changes)
    with db_api.transaction() as session:
        domain, config = _config(session, domain_id, group, option)
        for name, options in changes.items():
            config.setdefault(name, {}).update(options)
        domain.config = config
        return config


def delete_config(context, domain_id, group=None, option=None):
    policy.authorize(context, 'identity:delete_domain_config')
    with db_api.transaction() as session:
        domain, config = _config(session, domain_id, group, option)
        if option is not None:
            del config[group][option]
        elif group is not None:
            del config[group]
        domain.config = config if group is not None else None


def default_config(group=None, option=None):
    """Keystone's defaults, of every group, one group or one option."""
    if group is not None and group not in CONFIG_DEFAULTS:
        raise exception.NotFound(kind='Configuration group', name=group)
    if option is not None:
        if option not in CONFIG_DEFAULTS[group]:
            raise exception.NotFound(kind='Configuration option', name=option)
        return {option: CONFIG_DEFAULTS[group][option]}
    return copy.deepcopy({group: CONFIG_DEFAULTS[group]} if group else CONFIG_DEFAULTS)


(show_endpoint_group, list_endpoint_groups, update_endpoint_group,
 delete_endpoint_group) = records.operations(models.EndpointGroup, 'Endpoint group',
                                             'endpoint_group', 'endpoint_groups')
show_consumer, list_consumers, update_consumer, delete_consumer = records.operations(
    models.OAuthConsumer, 'Consumer', 'consumer', 'consumers')
