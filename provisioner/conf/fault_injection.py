"""[fault_injection]: test-only fault points, never part of a deployment's configuration.

The functional tests and benches set these to fail, kill or pause a process right
after a step's side effect (provisioner.fault_injection). They are registered like every
option, so a test's configuration file or environment can set them, but they are
left out of the sample configuration (``list_opts`` gives none): an operator never
sees them as settings of the product.
"""

from oslo_config import cfg

fault_injection_opts = [
    cfg.ListOpt('fail_after_step',
                default=[],
                help='TESTING ONLY. Step names whose execution raises an injected '
                     'fault right after its side effect, to prove the rollback. '
                     'STEP@HOST fails the step only on that host (STEP@* on every '
                     'host), as a hypervisor failure that is rescheduled.'),
    cfg.ListOpt('crash_after_step',
                default=[],
                help='TESTING ONLY. Step names after whose side effect the process '
                     'kills itself with SIGKILL, to prove resume and rollback.'),
    cfg.ListOpt('pause_after_step',
                default=[],
                help='TESTING ONLY. Step names after whose side effect the process '
                     'waits [fault_injection] pause_seconds, to prove what happens '
                     'while a flow is under way (a delete waits for a running '
                     'boot).'),
    cfg.FloatOpt('pause_seconds',
                 default=5.0,
                 min=0,
                 help='TESTING ONLY. How long a pause_after_step pause lasts.'),
    cfg.BoolOpt('stop_taking_lease',
                default=False,
                help='TESTING ONLY. The engine stops itself (SIGSTOP) as it takes '
                     'an instance\'s lease, its transaction still open, to prove '
                     'another engine takes the boot over from a stalled one.'),
]


def register_opts(conf):
    conf.register_opts(fault_injection_opts, group='fault_injection')


def list_opts():
    return {}
