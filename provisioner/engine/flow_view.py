"""An instance action's flow as a client draws it: its real steps, links and states.

The structure is the flow itself: rebuilt with the factory its persisted flow
detail names (the delete flow, never persisted, with its own factory), compiled
as an engine compiles it, and flattened to atoms, their sub-flow groups and
atom-to-atom links (execution order; TaskFlow's no-op flow start and end nodes
are stepped over). It never changes for a factory and its arguments, so it is
built once per process.

The states are what TaskFlow persisted for each atom (read only); times, hosts
and results are the action's events, the steps as the flow listener recorded
them. A boot resumed or rolled back is the same flow carried on by another
action, so the events of every action of that flow are read together. A flow
without a persisted detail (the delete flow; a boot whose instance was deleted,
which forgets its flows) takes its states from the events alone.

Reschedule attempts are counted by the ``reschedule`` events (each names the
host that failed) and by the ``reschedule`` retry's history while it has one
(TaskFlow clears it when the retry is reverted).
"""

import dataclasses
import functools
import json

from oslo_utils import importutils
import sqlalchemy as sa
from taskflow import engines
from taskflow import flow as tf_flow
from taskflow.persistence.backends.sqlalchemy import tables as tf_tables
from taskflow.persistence import models as tf_models
from taskflow import states as tf_states

from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import persistence
from provisioner import redact
from provisioner.volume import api as volume_api

from flows import boot
from flows import constants
from flows import create_image
from flows import delete
from flows import live_migration
from flows import power
from flows import rebuild
from flows import volume
from flows.steps import base as steps_base

PENDING, RUNNING, DONE, FAILED, REVERTING, REVERTED = (
    'pending', 'running', 'done', 'failed', 'reverting', 'reverted')

ATOM_STATES = {tf_states.PENDING: PENDING, tf_states.RUNNING: RUNNING,
               tf_states.RETRYING: RUNNING, tf_states.SUCCESS: DONE,
               tf_states.FAILURE: FAILED, tf_states.REVERT_FAILURE: FAILED,
               tf_states.REVERTING: REVERTING, tf_states.REVERTED: REVERTED,
               tf_states.IGNORE: PENDING}

REVERT_SUFFIX = ' (revert)'

# The actions carried out by the boot flow (resume and rollback carry it on).
_BOOT_ACTIONS = (actions.CREATE, actions.RESUME, actions.ROLLBACK)


@dataclasses.dataclass(frozen=True)
class Structure:
    """A flow's atoms, sub-flows and links, as compiled (no state)."""

    name: str
    atoms: tuple    # ({"name", "kind", "group"}, ...) in definition order
    groups: tuple   # ({"name", "kind", "retry", "parent"}, ...)
    links: tuple    # ({"from", "to"}, ...)
    retry_scope: frozenset  # atoms the reschedule retry re-runs (empty: none)
    predecessors: dict      # atom -> the atoms linked to it

    def atom_names(self):
        return [atom['name'] for atom in self.atoms]


STRUCTURES_MAX = 64


def _pattern(flow):
    # taskflow.patterns.graph_flow -> graph
    return type(flow).__module__.rpartition('.')[2].removesuffix('_flow')


def _compile(flow):
    engine = engines.load(flow, engine='serial')
    engine.compile()
    graph = engine.compilation.execution_graph
    atoms, groups, scope = [], [], set()

    def walk(node, group, in_reschedule):
        item = node.item
        if isinstance(item, tf_flow.Flow):
            name = None
            if node.parent is not None:  # the root flow is the whole, not a group
                name = item.name
                groups.append({'name': name, 'kind': _pattern(item),
                               'retry': item.retry.name if item.retry else None,
                               'parent': group})
            in_reschedule = in_reschedule or (
                item.retry is not None and item.retry.name == constants.RESCHEDULE)
            for child in node:
                walk(child, name, in_reschedule)
            return
        kind = graph.nodes[item].get('kind', 'task')
        atoms.append({'name': item.name, 'kind': kind, 'group': group})
        if in_reschedule and item.name != constants.RESCHEDULE:
            scope.add(item.name)

    walk(engine.compilation.hierarchy, None, False)
    names = {atom['name'] for atom in atoms}
    links, predecessors = [], {name: [] for name in names}
    for node in graph.nodes:
        if node.name not in names:
            continue
        seen, pending, targets = set(), list(graph.successors(node)), []
        while pending:  # step over no-op flow start/end nodes to the next atoms
            successor = pending.pop(0)
            if successor in seen:
                continue
            seen.add(successor)
            if successor.name in names:
                targets.append(successor.name)
            else:
                pending.extend(graph.successors(successor))
        for target in targets:
            links.append({'from': node.name, 'to': target})
            predecessors[target].append(node.name)
    order = {name: index for index, name in enumerate(a['name'] for a in atoms)}
    links.sort(key=lambda link: (order[link['from']], order[link['to']]))
    return Structure(flow.name, tuple(atoms), tuple(groups), tuple(links),
                     frozenset(scope), predecessors)


def structure(factory_name, args=(), kwargs=None):
    """The compiled structure of the flow a factory builds (cached)."""
    return _structure(factory_name, json.dumps(list(args)),
                      json.dumps(kwargs or {}, sort_keys=True))


# Bounded: a volume action's factory argument is its volume's id, so an unbounded
# cache would keep an entry per volume ever attached or detached, for the life of
# provisioner-api. Boot, delete and power flows take a handful of entries.
@functools.lru_cache(maxsize=STRUCTURES_MAX)
def _structure(factory_name, args_json, kwargs_json):
    factory = importutils.import_class(factory_name)
    return _compile(factory(*json.loads(args_json), **json.loads(kwargs_json)))


def _factory_name(function):
    return '%s.%s' % (function.__module__, function.__name__)


def _structure_of(action, flow_detail):
    factory = (flow_detail.meta or {}).get('factory') if flow_detail else None
    if factory:
        return structure(factory['name'], factory.get('args', ()),
                         factory.get('kwargs'))
    if action['action'] in _BOOT_ACTIONS:
        return structure(_factory_name(boot.create_flow))
    if action['action'] == actions.DELETE:
        return structure(_factory_name(delete.create_flow))
    if action['action'] in volume_api.VOLUME_ACTIONS:
        # The volume's id is a value the flow injects: the structure is the same.
        _name, factory, args = volume.factory(action['action'], None)
    elif action['action'] == actions.REBUILD:
        _name, factory, args = rebuild.factory()
    elif action['action'] == actions.LIVE_MIGRATION:
        _name, factory, args = live_migration.factory()
    elif action['action'] == actions.CREATE_IMAGE:
        _name, factory, args = create_image.factory()
    else:
        _name, factory, args = power.factory(action['action'])
    return structure(_factory_name(factory), args)


# -- reads -----------------------------------------------------------------------

def _flow_events(action):
    """The events of every action carried out by the action's flow, in order.

    The reschedule retry records its event without an action: an instance has
    one boot flow, so its reschedule events are the boot's.
    """
    act, ev = models.InstanceAction, models.InstanceEvent
    if action['flow_uuid'] is None:
        of_flow = sa.select(act.id, act.request_id).where(act.id == action['id'])
    else:
        of_flow = sa.select(act.id, act.request_id).where(
            act.instance_id == action['instance_id'],
            act.flow_uuid == action['flow_uuid'])
    of_flow = of_flow.subquery()
    belongs = of_flow.c.id.is_not(None)
    if action['action'] in _BOOT_ACTIONS:
        belongs = sa.or_(belongs, sa.and_(ev.action_id.is_(None),
                                          ev.name == constants.RESCHEDULE))
    with db_api.transaction() as session:
        rows = session.execute(
            sa.select(ev.name, ev.host, ev.started_at, ev.finished_at, ev.result,
                      ev.message, of_flow.c.request_id)
            .outerjoin(of_flow, of_flow.c.id == ev.action_id)
            .where(ev.instance_id == action['instance_id'], belongs)
            .order_by(ev.id)).all()
    events, request_id = [], action['request_id']
    for row in rows:
        event = row._asdict()
        request_id = event['request_id'] = event['request_id'] or request_id
        events.append(event)
    return events


_atom_table = None


def _started_at(flow_uuid, names):
    """When atoms now running or reverting began: their detail's last write."""
    global _atom_table
    if not names:
        return {}
    if _atom_table is None:
        _atom_table = tf_tables.fetch(sa.MetaData()).atomdetails
    table = _atom_table
    with db_api.transaction() as session:
        rows = session.execute(sa.select(table.c.name, table.c.updated_at)
                               .where(table.c.parent_uuid == flow_uuid,
                                      table.c.name.in_(names))).all()
    return {name: moment for name, moment in rows}


# -- the view ----------------------------------------------------------------------

def _split(event_name):
    if event_name.endswith(REVERT_SUFFIX):
        return event_name[:-len(REVERT_SUFFIX)], 'revert'
    return event_name, 'execute'


def _steps(events, structure_):
    """One step per event, numbered with the reschedule attempt it belongs to."""
    steps, attempt = [], 1
    for event in events:
        atom, phase = _split(event['name'])
        if atom == constants.RESCHEDULE and phase == 'execute':
            attempt += 1
        steps.append({'atom': atom, 'phase': phase, 'result': event['result'],
                      'host': event['host'], 'started_at': event['started_at'],
                      'finished_at': event['finished_at'], 'attempt': attempt,
                      'request_id': event['request_id'],
                      'error': event['message'] if event['result'] == 'Error'
                      else None})
    return steps


def _state_of_step(step):
    if step['result'] == 'Success':
        return REVERTED if step['phase'] == 'revert' else DONE
    if step['result'] == 'Error':
        return FAILED
    return REVERTING if step['phase'] == 'revert' else RUNNING  # Interrupted


def _matches(state, step):
    return step is not None and _state_of_step(step) == state


def _states_from_events(structure_, last_step, action):
    """Atom states when no flow detail is left: the last event of each atom."""
    found = {name: _state_of_step(step) for name, step in last_step.items()}
    successors = {}
    for link in structure_.links:
        successors.setdefault(link['from'], []).append(link['to'])
    for atom in structure_.atoms:
        # A retry records no event of its own on its first attempt: it ran if
        # what it controls ran.
        if atom['kind'] == 'retry' and atom['name'] not in found and any(
                found.get(s, PENDING) != PENDING for s in successors.get(atom['name'],
                                                                          ())):
            found[atom['name']] = DONE
    if action['finish_time'] is None:
        # Still running: the first atoms whose predecessors all ended run now.
        for name in structure_.atom_names():
            if name not in found and all(found.get(p) == DONE
                                         for p in structure_.predecessors[name]):
                found[name] = RUNNING
    return {name: found.get(name, PENDING) for name in structure_.atom_names()}


def _flow_state(flow_detail, action, atom_states):
    if flow_detail is not None and flow_detail.state:
        return flow_detail.state
    if action['finish_time'] is not None:
        return tf_states.FAILURE if action['message'] else tf_states.SUCCESS
    if any(state != PENDING for state in atom_states.values()):
        return tf_states.RUNNING
    return tf_states.PENDING


def _attempts(structure_, steps, history, instance_id, flow_state):
    """Each reschedule attempt: the host it used, whether it failed and why."""
    if not structure_.retry_scope:
        return []
    rescheduled = [s for s in steps if s['atom'] == constants.RESCHEDULE]
    count = max(len(rescheduled) + 1, len(history))
    attempts = []
    for number in range(1, count + 1):
        host = None
        if number <= len(rescheduled):  # the reschedule event names the failed host
            host = rescheduled[number - 1]['host']
        elif number < len(history) and history[number][0]:
            host = history[number][0][-1]
        elif flow_state not in (tf_states.REVERTED, tf_states.FAILURE):
            host = instances.host_of(instance_id)
        errors = [s for s in steps if s['attempt'] == number and s['result'] == 'Error'
                  and s['atom'] in structure_.retry_scope]
        error = None
        if errors:
            error = '%s: %s' % (errors[0]['atom'], errors[0]['error'] or 'Error')
        elif number <= len(history) and history[number - 1][1]:
            error = redact.redact(steps_base.describe_failures(
                history[number - 1][1]))
        attempts.append({'attempt': number, 'host': host,
                         'failed': error is not None or number < count,
                         'error': error})
    return attempts


def show(compute, instance_id, request_id):
    """The flow of one action on an instance, with live states (policy-checked by
    ``compute``, the caller's provisioner.compute.api.ComputeAPI).

    Same policy as the action itself (``instance:actions``): another project's
    instance, or an action of another instance, is not found.
    """
    action = compute.action(instance_id, request_id)
    flow_detail = (persistence.get_flow_detail(action['flow_uuid'])
                   if action['flow_uuid'] else None)
    structure_ = _structure_of(action, flow_detail)
    steps = _steps(_flow_events(action), structure_)
    last_step, last_execute = {}, {}
    for step in steps:
        last_step[step['atom']] = step
        if step['phase'] == 'execute':
            last_execute[step['atom']] = step

    details = {ad.name: ad for ad in flow_detail} if flow_detail is not None else {}
    if details:
        atom_states = {name: ATOM_STATES.get(details[name].state, PENDING)
                       if name in details else PENDING
                       for name in structure_.atom_names()}
    else:
        atom_states = _states_from_events(structure_, last_step, action)
    flow_state = _flow_state(flow_detail, action, atom_states)

    history = []
    retry_detail = details.get(constants.RESCHEDULE)
    if isinstance(retry_detail, tf_models.RetryDetail):
        history = list(retry_detail.results or [])
    current_attempt = max(len(history),
                          steps[-1]['attempt'] if steps else 1, 1)

    in_flight = [name for name, state in atom_states.items()
                 if state in (RUNNING, REVERTING)]
    started = (_started_at(flow_detail.uuid, in_flight)
               if flow_detail is not None else {})
    atoms = []
    for atom in structure_.atoms:
        name, state = atom['name'], atom_states[atom['name']]
        step = last_step.get(name)
        view = dict(atom, state=state, host=None, started_at=None, finished_at=None,
                    error=None,
                    attempt=current_attempt)
        if state in (RUNNING, REVERTING):
            view['started_at'] = started.get(name)
            if view['started_at'] is None and _matches(state, step):
                view['started_at'] = step['started_at']  # interrupted, resumed
            steps.append({'atom': name,
                          'phase': 'revert' if state == REVERTING else 'execute',
                          'result': None, 'host': None,
                          'started_at': view['started_at'], 'finished_at': None,
                          'attempt': view['attempt'],
                          'request_id': action['request_id'], 'error': None})
        elif _matches(state, step):
            view.update(host=step['host'], started_at=step['started_at'],
                        finished_at=step['finished_at'], attempt=step['attempt'])
        executed = last_execute.get(name)
        if executed is not None and executed['result'] == 'Error' and (
                executed['attempt'] == view['attempt']):
            view['error'] = executed['error']  # failed, maybe reverted since
        atoms.append(view)

    return {'name': structure_.name, 'action': action['action'],
            'request_id': action['request_id'], 'state': flow_state,
            'atoms': atoms, 'groups': [dict(g) for g in structure_.groups],
            'links': [dict(link) for link in structure_.links],
            'attempts': _attempts(structure_, steps, history, action['instance_id'],
                                  flow_state),
            'steps': steps}
