"""Run tempest against a private provisioner-api all-in-one (``tox -e tempest``).

    python -m tests.tempest [SELECTION] [--concurrency N] [--dynamic-credentials]
                            [--exclude-list FILE] [--output DIR]
                            [-- TEMPEST RUN OPTIONS]

SELECTION: ``api`` (default: the API tests of compute, image, network, volume and
identity), ``interop`` (interop-required.txt: the interop guideline's required
tests, what ``tox -e tempest-ci`` runs), or any regex of test ids. What follows
``--`` is passed to ``tempest run``.

Exit status: tempest's, or 1 when the run left anything behind (servers, volumes,
images, ports... in the database; domains, networks or pools in libvirt; anything
``provisioner audit`` finds).
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from tests.functional import conftest as base
from tests.functional.api import conftest as api_conftest
from tests import netutil
from tests.tempest import cloud as tempest_cloud
from tests.tempest import conf
from tests.tempest import results

HERE = pathlib.Path(__file__).resolve().parent
SERVICES_REGEX = r'^tempest\.api\.(compute|image|network|volume|identity)\.'
LISTS = {'interop': HERE / 'interop-required.txt'}


def parse(argv):
    parser = argparse.ArgumentParser(prog='python -m tests.tempest', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('selection', nargs='?', default='api',
                        help='api, interop, or a regex of test ids')
    parser.add_argument('--concurrency', type=int,
                        default=int(os.environ.get('PROVISIONER_TEST_WORKERS', 2)),
                        help='tempest workers ($PROVISIONER_TEST_WORKERS, 2)')
    parser.add_argument('--exclude-list', type=pathlib.Path,
                        help='a file of test regexes not to run, each with the reason '
                             'after "#" (tox -e tempest-ci: ci-excluded.txt)')
    parser.add_argument('--dynamic-credentials', action='store_true',
                        help='let tempest create (and delete) its projects and users '
                             'instead of the pre-provisioned accounts')
    parser.add_argument('--output', type=pathlib.Path,
                        default=pathlib.Path(os.environ.get(
                            'PROVISIONER_TEST_OUTPUT_DIR', 'build')) / 'tempest',
                        help='where the run\'s subunit stream, tempest.log, '
                             'tempest.conf and provisioner-api.log are kept')
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index('--') if '--' in argv else len(argv)
    return parser.parse_args(argv[:split]), argv[split + 1:]


def include_list(name, workspace, config):
    """A tempest include list (one regex a line) for one of LISTS, whose lines are
    ``test.name[id-<uuid>]``: each test by its exact name, so that subclasses sharing
    its id (RoutersIpV6Test of RoutersTest...) are not run too; a test tempest has
    since moved, by its idempotent id; one it removed is left out, with a note."""
    listing = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / 'tempest'), 'run', '--config-file',
         str(config), '--list-tests', '--regex', SERVICES_REGEX],
        cwd=workspace / 'run', capture_output=True, text=True, check=True).stdout
    names = {line.split('[', 1)[0] for line in listing.splitlines()}
    ids = {results.idempotent_id(line) for line in listing.splitlines()}
    regexes = []
    for line in LISTS[name].read_text().splitlines():
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        test, uuid = line.split('[', 1)[0], results.idempotent_id(line)
        if test in names:
            regexes.append('^%s\\[' % re.escape(test))
        elif uuid in ids:
            print('%s: moved in this tempest, run by its id %s' % (test, uuid))
            regexes.append(r'\bid-%s\b' % uuid)
        else:
            print('%s: not in this tempest, not run' % test)
    path = workspace / ('%s.regex' % name)
    path.write_text('\n'.join(regexes) + '\n')
    return path


def selection_args(selection, workspace, config):
    if selection == 'api':
        return ['--regex', SERVICES_REGEX]
    if selection in LISTS:
        return ['--include-list', str(include_list(selection, workspace, config))]
    return ['--regex', selection]


def tempest(*args, cwd, check=True, stdout=None):
    program = pathlib.Path(sys.executable).parent / 'tempest'
    return subprocess.run([str(program)] + list(args), cwd=cwd, check=check,
                          stdout=stdout)


def prepare(cloud, workspace, dynamic):
    """Seed the deployment, tempest init a workspace, write its tempest.conf."""
    seeded = cloud.seed_for_tempest(base.build_guest_image()[2])
    # tempest init makes ~/.tempest/etc unless $XDG_CONFIG_HOME/tempest exists, and
    # tempest keeps locks in $TMPDIR/tempest-lock: the workspace's, removed with it.
    os.environ['XDG_CONFIG_HOME'] = str(workspace / 'xdg')
    os.environ['TMPDIR'] = str(workspace / 'tmp')
    for path in (workspace / 'xdg' / 'tempest', workspace / 'tmp'):
        path.mkdir(parents=True)
    tempest('init', '--workspace-path', str(workspace / 'workspaces.yaml'),
            str(workspace / 'run'), cwd=workspace)
    accounts = workspace / 'run' / 'etc' / 'accounts.yaml'
    accounts.write_text(conf.accounts_yaml(seeded))
    config = workspace / 'run' / 'etc' / 'tempest.conf'
    config.write_text(conf.tempest_conf(cloud.url, seeded, accounts,
                                        netutil.free_range(), workspace / 'locks',
                                        dynamic=dynamic))
    return config


def save(workspace, output, config, selection):
    """Keep the run's subunit stream, list of tests and logs in output; its summary
    as text (per test as listed: a class skipped once counts for each of its tests)."""
    run = workspace / 'run'
    output.mkdir(parents=True, exist_ok=True)
    with open(output / 'results.subunit', 'wb') as stream:
        subprocess.run([str(pathlib.Path(sys.executable).parent / 'stestr'), 'last',
                        '--subunit'], cwd=run, stdout=stream, check=False)
    with open(output / 'listed.txt', 'w') as listed:
        tempest('run', '--config-file', str(config), '--list-tests', *selection,
                cwd=run, stdout=listed, check=False)
    for path in (run / 'tempest.log', run / 'etc' / 'tempest.conf'):
        if path.exists():
            shutil.copy(path, output / path.name)
    tests = results.read(output / 'results.subunit')
    listed = [line.strip() for line in (output / 'listed.txt').read_text().splitlines()
              if line.strip().startswith('tempest.')]
    text = results.summary(results.by_listed(tests, listed) if listed else tests)
    teardowns = [t for t in tests if t.startswith('tearDownClass') and
                 tests[t]['status'] == 'fail']
    if teardowns:  # no listed test stands for them: said apart
        text += '\n%d class teardown(s) failed: %s' % (len(teardowns), ', '.join(teardowns))
    (output / 'summary.txt').write_text(text + '\n')
    return text



def _has_entries(path):
    """Whether an exclude list names any test (all its lines may be comments)."""
    return any(line.split('#', 1)[0].strip() for line in path.read_text().splitlines())

def main(argv=None):
    args, tempest_args = parse(argv)
    started = time.monotonic()
    workspace = pathlib.Path(tempfile.mkdtemp(prefix='provisioner-tempest-'))
    root = api_conftest.new_root('tempest')
    cloud = tempest_cloud.TempestCloud(root, workspace)
    code, problems = 1, []
    try:
        config = prepare(cloud, workspace, args.dynamic_credentials)
        print('provisioner-api at %s ready in %.0f s; tempest.conf: %s'
              % (cloud.url, time.monotonic() - started, config), flush=True)
        selection = selection_args(args.selection, workspace, config)
        excluded = (['--exclude-list', str(args.exclude_list.resolve())]
                    if args.exclude_list and _has_entries(args.exclude_list) else [])
        code = tempest('run', '--config-file', str(config), '--concurrency',
                       str(args.concurrency), *selection, *excluded, *tempest_args,
                       cwd=workspace / 'run', check=False).returncode
        print(save(workspace, args.output, config, selection))
    finally:
        try:
            seeded = cloud.seeded is not None
            problems = cloud.take_down(cloud.left_behind if seeded else list,
                                       cloud.remove_seeded if seeded else None)
        finally:
            cloud.dispose(args.output)
            shutil.rmtree(workspace, ignore_errors=True)
    for problem in problems:
        print('LEFT BEHIND: %s' % problem, file=sys.stderr)
    print('tempest %s: exit %d, %d problem(s) after it, %.0f s in all; results in %s'
          % (args.selection, code, len(problems), time.monotonic() - started,
             args.output))
    return code or (1 if problems else 0)


if __name__ == '__main__':
    sys.exit(main())
