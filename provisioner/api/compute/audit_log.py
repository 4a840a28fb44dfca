"""Nova's os-instance_usage_audit_log, for admins: the usage audit's runs per host.

provisioner runs no periodic usage audit (Nova's ``instance_usage_audit`` is off by
default too), so every compute host is reported as not run for the period, which
is the last completed month before the given time, as Nova's default audit period.
"""

import datetime

from provisioner.api.compute import hypervisors
from provisioner.api import wsgi

_FORMATS = ('%Y-%m-%d %H:%M:%S', '%Y-%m-%d %H:%M:%S.%f')


def _month_before(moment):
    end = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    begin = (end - datetime.timedelta(days=1)).replace(day=1)
    return begin, end


def _report(req, before):
    hosts = sorted(h['name'] for h in hypervisors.list_hosts(req))
    begin, end = _month_before(before)
    return {'hosts_not_run': hosts, 'log': {}, 'num_hosts': len(hosts),
            'num_hosts_done': 0, 'num_hosts_not_run': len(hosts),
            'num_hosts_running': 0,
            'overall_status': '0 of %d hosts done. 0 errors.' % len(hosts),
            'period_beginning': begin.strftime('%Y-%m-%d %H:%M:%S'),
            'period_ending': end.strftime('%Y-%m-%d %H:%M:%S'),
            'total_errors': 0, 'total_instances': 0}


@wsgi.route('GET', '/v2.1/os-instance_usage_audit_log')
def index(req):
    hypervisors.require_admin(req, 'The instance usage audit log')
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return wsgi.json_response({'instance_usage_audit_logs': _report(req, now)})


@wsgi.route('GET', '/v2.1/os-instance_usage_audit_log/{before}')
def show(req, before):
    hypervisors.require_admin(req, 'The instance usage audit log')
    for form in _FORMATS:
        try:
            moment = datetime.datetime.strptime(before, form)
            break
        except ValueError:
            continue
    else:
        raise wsgi.HTTPError(400, 'Invalid timestamp for date %s' % before)
    return wsgi.json_response({'instance_usage_audit_log': _report(req, moment)})
