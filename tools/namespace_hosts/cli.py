"""tools/hosts: the command line."""

import argparse
import json
import os
import shutil
import sys
import time

from namespace_hosts import hypervisor
from namespace_hosts import lifecycle
from namespace_hosts import names
from namespace_hosts import net
from namespace_hosts import nsexec
from namespace_hosts import relay
from namespace_hosts import state

PROG = 'tools/hosts'
DESCRIPTION = """\
Hypervisor hosts on one machine, for tests and for trying a multi-host cloud.

Each host TAG-h1..TAG-hN is a network namespace with its own mount, uts and pid
namespaces, running its own libvirtd (QEMU guests, TCG) with its own hostname and host
UUID, and a leg "underlay" on an underlay network of the run's own: a bridge in the
namespace TAG-fabric, a free 10.99.K.0/24 (hosts at .11, .12, ...). The root namespace
gets one address there, .1 on TAG-mgmt, and userspace relays from .1:PORT to its
own 127.0.0.1:PORT, so daemons inside the hosts reach RabbitMQ or an API listening on
the machine's loopback. Nothing is routed, forwarded or NATed in the root namespace,
and the hosts have no route off the underlay: traffic stays between this run's own
namespaces and processes.

Every name starts with the TAG (--name, default "demo"), so two runs never collide and
"down --name TAG" removes a run even when its state file is gone. Run as root.
What libvirtd learns probing QEMU (seconds per host) is kept for the next run in
/var/cache/provisioner-hosts, a cache like libvirt's own: delete it any time."""

EPILOG = """\
examples:
  tools/hosts up 3 --relay 5672          three hosts; RabbitMQ reachable at 10.99.K.1:5672
  virsh -c 'qemu+unix:///system?socket=/var/lib/provisioner-hosts/demo/demo-h2/run/\
libvirt-sock' list                      host 2's libvirtd, from the root namespace
  tools/hosts exec demo-h2 -- virsh list --all     (inside: qemu:///system is the host's own)
  tools/hosts exec demo-h2 -- provisioner-worker --config-file worker.conf
  tools/hosts partition demo-h2; tools/hosts heal demo-h2
  tools/hosts kill demo-h2; tools/hosts start demo-h2
  tools/hosts attach ceph                a plain namespace demo-ceph on the underlay
  tools/hosts status
  tools/hosts down                       everything of the run; safe to repeat

The state of a run is in STATE_DIR/hosts.json (default /var/lib/provisioner-hosts/TAG);
commands other than up and down read it: give them the same --name and --state-dir."""


def _parser():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument('--name', metavar='TAG',
                        help='the run, the prefix of its names (default: %s; 1-8 lower-case '
                             'letters or digits)' % names.DEFAULT_TAG)
    common.add_argument('--state-dir', metavar='DIR',
                        help='its state directory (default: %s/TAG)' % names.STATE_ROOT)
    printing = argparse.ArgumentParser(add_help=False, parents=[common])
    printing.add_argument('--json', action='store_true', help='print the state as JSON')
    parser = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest='command', metavar='COMMAND', required=True)

    def command(name, help_text, parent=printing):
        return commands.add_parser(name, parents=[parent], help=help_text,
                                   description=help_text)

    cmd = command('up', 'make N hosts on a new underlay, each with its own libvirtd; '
                        'prints, and records, how to reach each')
    cmd.add_argument('count', type=int, metavar='N', help='how many hosts (1-%d)'
                     % names.MAX_HOSTS)
    cmd.add_argument('--relay', type=int, action='append', default=[], metavar='PORT',
                     help='relay MGMT:PORT to 127.0.0.1:PORT in the root namespace '
                          '(repeatable; e.g. 5672 for RabbitMQ)')
    cmd.add_argument('--tcp', action='store_true',
                     help='libvirtd also listens on its underlay address, port 16509, '
                          'without authentication (qemu+tcp://IP/system, for migration)')
    cmd.add_argument('--mtu', type=int, default=1500,
                     help='of the underlay (default 1500; 1550 leaves a VXLAN 1500)')
    cmd.add_argument('--cidr', help='the underlay, a private /24 (default: the first free '
                                    '10.99.K.0/24)')
    cmd = command('exec', 'run a command inside a host (its network, mount, uts and pid '
                          'namespaces) or an attached namespace; stdio, exit status and '
                          'signals pass through, so it can run a daemon', parent=common)
    cmd.add_argument('member', metavar='HOST', help='TAG-h1, or h1 with --name')
    cmd.add_argument('argv', nargs=argparse.REMAINDER, metavar='-- CMD...')
    for name, help_text in (
            ('kill', 'kill a whole host at once (its pid namespace: libvirtd, guests, '
                     'everything exec\'d there), then its network namespace'),
            ('start', 'start a killed host again (same name, address, host UUID, '
                      'libvirt state)'),
            ('partition', 'cut a host\'s (or attached namespace\'s) underlay link, both '
                          'ways; everything inside keeps running'),
            ('heal', 'restore a partitioned underlay link')):
        command(name, help_text).add_argument('member', metavar='HOST')
    cmd = command('attach', 'add a plain network namespace TAG-NAME on the underlay, with '
                            'an address (a storage cluster, an external client)')
    cmd.add_argument('member', metavar='NAME')
    command('detach', 'kill what runs in an attached namespace and delete it'
            ).add_argument('member', metavar='NAME')
    for name, help_text in (('relay', 'relay one more port MGMT:PORT -> 127.0.0.1:PORT'),
                            ('unrelay', 'stop relaying a port')):
        command(name, help_text).add_argument('port', type=int, metavar='PORT')
    command('status', 'what runs now: hosts, libvirtd, links, relays')
    command('down', 'remove everything of the run (hosts, attached namespaces, relays, '
                    'bridge, links, state directory); safe to repeat, and after a failed up')
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (['_init'], [relay.MARK]):
        return _internal(argv)
    args = _parser().parse_args(argv)
    try:
        if os.geteuid() != 0:
            raise names.UsageError('must run as root (it makes namespaces and links)')
        return COMMANDS[args.command](args)
    except names.UsageError as exc:
        print('%s: error: %s' % (PROG, exc), file=sys.stderr)
        return 2
    except net.CommandError as exc:
        print('%s: %s failed: %s' % (PROG, args.command, exc), file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _run(args):
    return names.Run(args.name, args.state_dir)


def _member(args):
    tag, member = names.split_member(args.member, args.name)
    return names.Run(tag, args.state_dir), member


def _up(args):
    for tool in ('ip', 'unshare', 'mount', 'libvirtd', 'virsh'):
        if shutil.which(tool) is None:
            raise names.UsageError('%s is not installed: run tools/setup-host.sh' % tool)
    doc = lifecycle.up(_run(args), args.count, args.relay, args.tcp, args.mtu, args.cidr)
    return _show(args, doc, 'up in %.1f s' % doc['up_seconds'])


def _exec(args):
    argv = args.argv[1:] if args.argv[:1] == ['--'] else args.argv
    if not argv:
        raise names.UsageError('no command: tools/hosts exec HOST -- CMD...')
    run, member = _member(args)
    netns = run.netns(member)
    if names.HOST_RE.match(member):
        init = hypervisor.find_init(netns)
        if init is None:
            raise names.UsageError('host %s is not running (tools/hosts status --name %s)'
                                   % (netns, run.tag))
        nsexec.run(init, argv)
    if netns not in net.netns_list():
        raise names.UsageError('no namespace %s (tools/hosts status --name %s)'
                               % (netns, run.tag))
    os.execvp('ip', ['ip', 'netns', 'exec', netns] + argv)


def _on_member(action, what):
    def command(args):
        run, member = _member(args)
        doc = action(run, member)
        if args.json:
            return _show(args, doc, what)
        record = next((r for r in doc['hosts'] + doc['attached']
                       if r['member'] == member), None)
        print('%s %s%s' % (run.netns(member), what, '' if record is None else (
            ' (%s; inside: %s)' % (record['address'], record['exec']))))
        return 0
    return command


def _relay_command(action, what):
    def command(args):
        run = _run(args)
        doc = action(run, args.port)
        if args.json:
            return _show(args, doc, what)
        print('%s:%d %s' % (doc['management']['address'], args.port, what))
        return 0
    return command


def _status(args):
    run = _run(args)
    doc = state.load(run)
    if doc is None:
        found = lifecycle.leftovers(run)
        print('%s has no state file (%s)%s' % (run.tag, run.state_file, (
            '; left behind: %s (tools/hosts down --name %s)' % (', '.join(found), run.tag))
            if found else ' and nothing on this machine'))
        return 1 if found else 0
    namespaces = net.netns_list()
    for record in doc['hosts'] + doc['attached']:
        running = record['netns'] in namespaces
        link = net.link_state(record['member'], netns=run.fabric) if running else None
        record['live'] = {'namespace': running, 'underlay_link': link}
        if 'host_uuid' in record:
            record['live'].update(init_pid=hypervisor.find_init(record['netns']),
                                  libvirtd_answers=running and hypervisor.answers(
                                      record['dir'], timeout=5))
    for entry in doc['management']['relays']:
        entry['live'] = bool(relay.find(run.tag, entry['port']))
    return _show(args, doc, 'status')


def _down(args):
    run = _run(args)
    started = time.monotonic()
    removed = lifecycle.down(run)
    if args.json:
        print(json.dumps({'removed': removed,
                          'seconds': round(time.monotonic() - started, 2)}))
    else:
        print('%s: down in %.1f s: %s' % (run.tag, time.monotonic() - started,
                                          '; '.join(removed) or 'nothing was there'))
    return 0


def _show(args, doc, what):
    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=True))
        return 0
    management = doc['management']
    lines = ['%s: %s' % (doc['tag'], what),
             '  underlay  %s: bridge %s in namespace %s (mtu %d)' % (
                 doc['underlay']['cidr'], doc['underlay']['bridge'],
                 doc['underlay']['netns'], doc['underlay']['mtu']),
             '  root leg  %s on %s; relays: %s' % (
                 management['address'], management['device'],
                 ', '.join('%s -> %s%s' % (e['listen'], e['target'], _live(e['live']))
                           if 'live' in e else '%s -> %s' % (e['listen'], e['target'])
                           for e in management['relays']) or 'none')]
    for record in doc['hosts'] + doc['attached']:
        lines.append('  %-10s %-12s %s%s' % (
            record['name'], record['address'],
            'libvirt %s' % record['libvirt_uri'] if 'libvirt_uri' in record
            else 'attached namespace', _condition(record)))
    lines += ['  inside a host: %s exec %s -- CMD...' % (
                  PROG, doc['hosts'][0]['name']),
              '  state: %s' % doc['state_file'],
              '  remove it all: %s down --name %s%s' % (
                  PROG, doc['tag'], '' if os.path.dirname(doc['state_dir'])
                  == names.STATE_ROOT else ' --state-dir %s' % doc['state_dir'])]
    print('\n'.join(lines))
    return 0


def _live(flag):
    return '' if flag else ' (NOT RUNNING)'


def _condition(record):
    live = record.get('live')
    if live is None:
        words = ['killed' if record.get('running') is False else '',
                 'partitioned' if record['partitioned'] else '']
    elif not live['namespace']:
        words = ['killed' if 'host_uuid' in record else 'gone']
    else:
        words = ['partitioned' if live['underlay_link'] == 'down' else '',
                 'libvirtd NOT ANSWERING' if live.get('libvirtd_answers') is False else '']
    words = [word for word in words if word]
    return '  [%s]' % ', '.join(words) if words else ''


def _internal(argv):
    """The processes up leaves running: a host's init, a relay."""
    parser = argparse.ArgumentParser(prog='%s %s' % (PROG, argv[0]))
    if argv[0] == '_init':
        parser.add_argument('--host-dir', required=True)
        parser.add_argument('--hostname', required=True)
        parser.add_argument('--tcp', action='store_true')
        args = parser.parse_args(argv[1:])
        hypervisor.init_main(args.host_dir, args.hostname, args.tcp)
    parser.add_argument('--name', required=True)
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--fd', type=int, required=True)
    args = parser.parse_args(argv[1:])
    relay.serve(args.fd, args.port)


COMMANDS = {
    'up': _up, 'exec': _exec, 'status': _status, 'down': _down,
    'kill': _on_member(lifecycle.kill, 'killed'),
    'start': _on_member(lifecycle.start, 'started'),
    'partition': _on_member(lambda run, m: lifecycle.set_partitioned(run, m, True),
                            'partitioned'),
    'heal': _on_member(lambda run, m: lifecycle.set_partitioned(run, m, False), 'healed'),
    'attach': _on_member(lifecycle.attach, 'attached'),
    'detach': _on_member(lifecycle.detach, 'detached'),
    'relay': _relay_command(lifecycle.relay_port, 'relayed'),
    'unrelay': _relay_command(lifecycle.unrelay, 'no longer relayed'),
}
