#!/usr/bin/env python3
"""Fail when an import goes up the layer order, when the top-level areas of
provisioner import each other in a cycle, when the modules of one area do, when an
import crosses a declared wall, or when a module holding a host half reaches the
database.

An area is ``provisioner.<subpackage or module>`` or the ``flows`` package. Every
import counts, at module level or inside a function: a lazy import is still a
dependency. Only the standard library is used, so ``tox -e pep8`` runs it without
installing the project.

Usage: check_import_graph.py [ROOT]   (ROOT defaults to the repository root)
"""

import ast
import os
import sys

PACKAGES = ('provisioner', 'flows')

# The layers, top first: an area imports only areas of the layers below its own, and
# the areas of one layer never import each other. A new area takes its place here.
LAYERS = (
    ('provisioner.cmd',),                                # the daemons and the CLI
    ('provisioner.dashboard',),                          # a page on the REST API
    ('provisioner.api', 'provisioner.engine'),           # the REST API; flow runners
    ('provisioner.worker',),                             # a host's side of the steps
    ('flows',),                                          # the steps and their flows
    ('provisioner.notifications', 'provisioner.volume'),  # the services...
    ('provisioner.compute',),
    ('provisioner.scheduler',),
    ('provisioner.catalog',),
    ('provisioner.maintenance',),
    ('provisioner.virt',),                               # ...and this host's hypervisor
    ('provisioner.image',),
    ('provisioner.client',),                             # provisioner-api's client
    ('provisioner.network',),
    ('provisioner.deployment', 'provisioner.identity', 'provisioner.leftovers',
     'provisioner.quota'),
    ('provisioner.db', 'provisioner.fault_injection', 'provisioner.fileperms',
     'provisioner.metadata_signing', 'provisioner.policy', 'provisioner.rpc',
     'provisioner.token_files', 'provisioner.validation'),
    ('provisioner.conf', 'provisioner.disk_formats', 'provisioner.exception',
     'provisioner.naming', 'provisioner.policies', 'provisioner.progress',
     'provisioner.redact', 'provisioner.schemas'),         # plain helpers
)

# area -> areas it must never import though they lie below it (the declared walls).
# '*' means every area except those listed under ALLOWED.
FORBIDDEN = {
    'provisioner.db': '*',
    'provisioner.conf': '*',
    'provisioner.virt': ('provisioner.db',),
    # The REST API calls the services; flows, hosts and the database are theirs.
    'provisioner.api': ('provisioner.db', 'provisioner.virt', 'provisioner.worker',
                        'flows'),
    # A hypervisor host holds no database (issue 13 item 1; at run time too:
    # provisioner.worker.no_database).
    'provisioner.worker': ('provisioner.db',),
}
# What the bottom layers may still use: plain helpers that import nothing above them.
ALLOWED = {
    'provisioner.db': ('provisioner.conf', 'provisioner.exception'),
    'provisioner.conf': (),
}
# Edges of the cycles that remain, each to be removed (issue 13 item 7): ignored when
# looking for cycles so that no NEW cycle can form, and listed at every run.
KNOWN_CYCLE_EDGES = (
)
# The same for the cycles between modules of one area (module_cycles).
KNOWN_MODULE_CYCLE_EDGES = (
)


def area_of(module, packages=PACKAGES):
    """'provisioner.engine.remote' -> 'provisioner.engine'; 'flows.steps.x' -> 'flows'."""
    parts = module.split('.')
    if parts[0] not in packages:
        return None
    if parts[0] == 'flows' or len(parts) == 1:
        return parts[0]
    return '.'.join(parts[:2])


def _module_name(root, path):
    rel = os.path.relpath(path, root)[:-len('.py')].split(os.sep)
    if rel[-1] == '__init__':
        rel = rel[:-1]
    return '.'.join(rel)


def _source_files(root, packages):
    for package in packages:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, package)):
            dirnames[:] = sorted(d for d in dirnames if d != '__pycache__')
            for filename in sorted(filenames):
                if filename.endswith('.py'):
                    yield os.path.join(dirpath, filename)


def _is_package(root, module):
    return os.path.isfile(os.path.join(root, *module.split('.'), '__init__.py'))


def _imported_modules(root, path, module):
    """Yield (imported module, line) for every import statement in one file."""
    with open(path, encoding='utf-8') as source:
        tree = ast.parse(source.read(), path)
    package = module if _is_package(root, module) else module.rpartition('.')[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parent = package.split('.')
                parent = parent[:len(parent) - node.level + 1]
                base = '.'.join(parent + ([base] if base else []))
            for alias in node.names:
                # 'from provisioner import faults' imports the module provisioner.faults.
                candidate = '%s.%s' % (base, alias.name)
                is_module = (_is_package(root, candidate)
                             or os.path.isfile(os.path.join(root, *candidate.split('.'))
                                               + '.py'))
                yield (candidate if is_module else base), node.lineno


def import_graph(root, packages=PACKAGES):
    """{(from_area, to_area): [(file, line, imported module), ...]} between areas."""
    edges = {}
    for path in _source_files(root, packages):
        module = _module_name(root, path)
        source_area = area_of(module, packages)
        for imported, line in _imported_modules(root, path, module):
            target_area = area_of(imported, packages)
            if target_area is None or target_area == source_area:
                continue
            # The bare top-level package (provisioner/__init__.py) holds no code.
            if target_area in packages and target_area != 'flows':
                continue
            site = (os.path.relpath(path, root), line, imported)
            edges.setdefault((source_area, target_area), []).append(site)
    return edges


def _strongly_connected(nodes, successors):
    """Tarjan's algorithm, iterative; returns the components with more than one node."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(start):
        work = [(start, iter(sorted(successors.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(successors.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def _one_cycle(component, successors):
    """A shortest cycle through the first area of a strongly connected component."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(successors.get(node, ())):
            if child == start:
                return paths[node] + [start]
            if child in members and child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    return component


def module_cycles(root, packages=PACKAGES, known=KNOWN_MODULE_CYCLE_EDGES):
    """Lines naming each import cycle between the modules of one area (empty when
    there is none): a circle inside an area hides the order its modules build on
    each other as surely as one between areas does. ``known``: (module, module)
    edges left out, each to be removed."""
    successors, sites = {}, {}
    for path in _source_files(root, packages):
        module = _module_name(root, path)
        area = area_of(module, packages)
        for imported, line in _imported_modules(root, path, module):
            if imported == module or area_of(imported, packages) != area \
                    or (module, imported) in known:
                continue
            successors.setdefault(module, set()).add(imported)
            sites.setdefault((module, imported), (os.path.relpath(path, root), line))
    found = []
    for component in _strongly_connected(successors, successors):
        cycle = _one_cycle(component, successors)
        found.append('cycle inside %s: %s' % (area_of(cycle[0], packages),
                                               ' -> '.join(cycle)))
        for source, target in zip(cycle, cycle[1:]):
            path, line = sites[(source, target)]
            found.append('    %s:%d imports %s' % (path, line, target))
        if len(component) > len(cycle) - 1:
            found.append('    (a circle of %d modules: %s)'
                         % (len(component), ', '.join(component)))
    return found


# -- the modules holding a host step's host half: a worker imports them --------------

DATABASE = 'provisioner.db'


def _project_module(root, name):
    """The longest prefix of name that is a module or package of the tree (None)."""
    parts = name.split('.')
    while parts:
        candidate = '.'.join(parts)
        if _is_package(root, candidate) or os.path.isfile(
                os.path.join(root, *parts) + '.py'):
            return candidate
        parts.pop()
    return None


def _parents(module):
    """The packages importing module runs first: 'a.b.c' -> ['a', 'a.b']."""
    parts = module.split('.')
    return ['.'.join(parts[:i]) for i in range(1, len(parts))]


def _module_imports(root, packages):
    """{module: {(module it imports, file, line)}} over the tree, every import
    counted (module level or inside a function), with the packages each runs."""
    graph = {}
    for path in _source_files(root, packages):
        module = _module_name(root, path)
        edges = graph.setdefault(module, set())
        rel = os.path.relpath(path, root)
        for imported, line in _imported_modules(root, path, module):
            target = _project_module(root, imported) if area_of(imported, packages) else None
            if target is None:
                continue
            for each in _parents(target) + [target]:
                if each != module:
                    edges.add((each, rel, line))
    return graph


def _holds_a_host_half(path):
    """Whether a file defines a class deriving from HostStep, directly or through a
    class of its own that does."""
    with open(path, encoding='utf-8') as source:
        tree = ast.parse(source.read(), path)
    steps = {'HostStep'}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
                (base.attr if isinstance(base, ast.Attribute)
                 else getattr(base, 'id', None)) in steps for base in node.bases):
            steps.add(node.name)
    return len(steps) > 1


def host_halves_reaching_the_database(root, packages=PACKAGES):
    """Lines naming, for each flows module holding a host half, the chain of imports
    by which it reaches provisioner.db (none: empty). A worker imports those modules
    and has no database (provisioner.worker.no_database refuses it at run time)."""
    graph = _module_imports(root, packages)
    found = []
    for path in _source_files(root, ('flows',)):
        start = _module_name(root, path)
        if not _holds_a_host_half(path):
            continue
        came_from = {start: None}
        queue = [start] + [p for p in _parents(start) if p in graph]
        for parent in queue[1:]:
            came_from[parent] = (start, os.path.relpath(path, root), 0)
        reached = None
        while queue and reached is None:
            module = queue.pop(0)
            # At each import, its module before the packages it runs: the chain
            # names what was imported.
            for target, rel, line in sorted(graph.get(module, ()),
                                            key=lambda e: (e[1], e[2], -len(e[0]))):
                if target in came_from:
                    continue
                came_from[target] = (module, rel, line)
                if target == DATABASE or target.startswith(DATABASE + '.'):
                    reached = target
                    break
                queue.append(target)
        if reached is None:
            continue
        hops, chain = [], [reached]
        while came_from[reached] is not None:
            module, rel, line = came_from[reached]
            hops.append('    %s:%d imports %s' % (rel, line, reached) if line
                        else '    %s runs its package %s' % (rel, reached))
            reached = module
            chain.append(module)
        found.append('database in a host half: %s' % ' -> '.join(reversed(chain)))
        found.extend(reversed(hops))
    return found


def layer_problems(edges, layers, reported=()):
    """Lines for each import that does not go down the layer order, and each area
    that has no layer; ``reported``: edges already named (a cycle, a wall)."""
    level = {area: index for index, layer in enumerate(layers) for area in layer}
    found = ['layer: %s has no place in the layer order (add it to LAYERS)' % area
             for area in sorted({a for edge in edges for a in edge} - set(level))]
    for (source, target), sites in sorted(edges.items()):
        if source not in level or target not in level or (source, target) in reported \
                or level[target] > level[source]:
            continue
        how = 'its own layer' if level[target] == level[source] else 'a layer above it'
        for path, line, imported in sites:
            found.append('layer: %s must not import %s, of %s (%s:%d imports %s)'
                         % (source, target, how, path, line, imported))
    return found


def problems(root, packages=PACKAGES, forbidden=None, allowed=None,
             known_cycles=KNOWN_CYCLE_EDGES, layers=LAYERS):
    """Human-readable lines, one per cycle, wall crossing or import up the layers
    (empty when clean)."""
    forbidden = FORBIDDEN if forbidden is None else forbidden
    allowed = ALLOWED if allowed is None else allowed
    edges = import_graph(root, packages)
    successors = {}
    for source, target in edges:
        if (source, target) not in known_cycles:
            successors.setdefault(source, set()).add(target)
    found, reported = [], set(known_cycles)
    for component in _strongly_connected(successors, successors):
        cycle = _one_cycle(component, successors)
        found.append('cycle: %s' % ' -> '.join(cycle))
        for source, target in zip(cycle, cycle[1:]):
            path, line, imported = edges[(source, target)][0]
            found.append('    %s:%d imports %s' % (path, line, imported))
        reported.update((s, t) for s, t in edges if s in component and t in component)
    for (source, target), sites in sorted(edges.items()):
        walled = forbidden.get(source, ())
        crosses = (target not in allowed.get(source, ()) if walled == '*'
                   else target in walled)
        if crosses:
            reported.add((source, target))
            for path, line, imported in sites:
                found.append('wall: %s must not import %s (%s:%d imports %s)'
                             % (source, target, path, line, imported))
    found.extend(layer_problems(edges, layers, reported))
    found.extend(module_cycles(root, packages))
    found.extend(host_halves_reaching_the_database(root, packages))
    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = problems(root)
    for source, target in KNOWN_CYCLE_EDGES + KNOWN_MODULE_CYCLE_EDGES:
        print('known cycle edge, to be removed: %s -> %s' % (source, target))
    for line in found:
        print(line)
    if found:
        print('import graph check failed: %d problem line(s)' % len(found))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
