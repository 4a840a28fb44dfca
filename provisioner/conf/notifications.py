"""[notifications] options: the versioned notifications instance actions send.

Whether notifications are sent at all is oslo.messaging's business: they are when
``[oslo_messaging_notifications] transport_url`` or ``[DEFAULT] transport_url`` is
set, and never when ``[oslo_messaging_notifications] driver`` is ``noop``.
"""

from oslo_config import cfg

notification_opts = [
    cfg.ListOpt('versioned_notifications_topics',
                default=['versioned_notifications'],
                help='Topics the versioned notifications (instance.create.start, '
                     'instance.power_off.end, ...) are sent to, as Nova\'s option of '
                     'the same name. Consumers such as Searchlight or a billing '
                     'service listen on them. Related options: '
                     '[oslo_messaging_notifications] transport_url and driver.'),
]


def register_opts(conf):
    conf.register_opts(notification_opts, group='notifications')


def list_opts():
    return {'notifications': notification_opts}
