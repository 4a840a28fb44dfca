"""Write interop-required.txt from an openstack/interop guideline file.

    python -m tests.tempest.interop GUIDELINE.json [--source TEXT] > interop-required.txt

The tests of every capability the "OpenStack Powered Compute" platform requires
(its components' ``required`` capabilities), one a line as ``test[id-<uuid>]``, under
a comment naming the capability. A test the guideline flags (exempt while it is
fixed) is listed too, marked ``# flagged: <reason>``: the issue counts it, and it
passes on a cloud that has the capability.
"""

import argparse
import json
import sys

PLATFORM = 'OpenStack Powered Compute'


def required_tests(guideline):
    """[(capability, test name, idempotent uuid, flag reason or None)]."""
    found = []
    for component in guideline['platforms'][PLATFORM]['components']:
        required = guideline['components'][component['name']]['capabilities']['required']
        for capability in required:
            for name, test in guideline['capabilities'][capability]['tests'].items():
                uuid = test['idempotent_id'].split('id-', 1)[1]
                flagged = test.get('flagged')
                found.append((capability, name, uuid,
                              flagged.get('reason', 'flagged') if flagged else None))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.tempest.interop',
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('guideline', help='a guideline file (next.json, 2020.06.json)')
    parser.add_argument('--source', default='',
                        help='where it came from (repository, commit), for the header')
    args = parser.parse_args(argv)
    with open(args.guideline) as source:
        guideline = json.load(source)
    meta = guideline['metadata']
    tests = required_tests(guideline)
    print('# The tests the OpenStack interop guideline requires of the "%s" platform'
          % PLATFORM)
    print('# (compute, identity, image, network, volume), each with its idempotent id.')
    print('# Guideline: %s (metadata id %s, status %s, target %s); %s'
          % (args.guideline.rsplit('/', 1)[-1], meta.get('id'),
             meta.get('os_trademark_approval', {}).get('status'),
             meta.get('os_trademark_approval', {}).get('target_approval'), args.source))
    print('# %d tests, %d of them flagged by the guideline (exempt while flagged).'
          % (len(tests), sum(1 for t in tests if t[3])))
    print('# Made with: python -m tests.tempest.interop GUIDELINE.json --source ...')
    capability = None
    for cap, name, uuid, flagged in tests:
        if cap != capability:
            print('# -- %s' % cap)
            capability = cap
        line = '%s[id-%s]' % (name, uuid)
        print('%s  # flagged: %s' % (line, ' '.join(flagged.split())) if flagged else line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
