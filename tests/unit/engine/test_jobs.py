"""What a job on the jobboard carries."""

import types

from provisioner.engine import jobs


def _job(**details):
    return types.SimpleNamespace(details=details)


def test_a_volume_delete_names_its_volume_as_such_and_reads_an_earlier_releases():
    assert jobs.volume_of(_job(action=jobs.VOLUME_DELETE, volume_id='v1')) == 'v1'
    # Posted by provisioner-api of the previous release, during a rolling upgrade.
    assert jobs.volume_of(_job(action=jobs.VOLUME_DELETE, instance_id='v2')) == 'v2'


def _board(monkeypatch):
    posted = []

    class Board:
        def iterjobs(self, ensure_fresh=False):
            return iter(posted)

        def post(self, name, details):
            job = types.SimpleNamespace(name=name, details=details, uuid='u%d'
                                        % len(posted))
            posted.append(job)
            return job

    board = Board()
    monkeypatch.setattr(jobs, 'get_board', lambda: board)
    return posted


def test_a_volume_delete_is_posted_once_under_its_volume(monkeypatch):
    posted = _board(monkeypatch)
    first = jobs.post_volume_delete('v1')
    assert jobs.post_volume_delete('v1') is first
    assert [(j.name, j.details) for j in posted] == [
        ('volume-delete-v1', {'action': 'volume-delete', 'volume_id': 'v1'})]


def test_a_snapshot_flow_is_posted_once_under_its_kind_and_resource(monkeypatch):
    posted = _board(monkeypatch)
    first = jobs.post_volume_flow('create-snapshot', 's1')
    assert jobs.post_volume_flow('create-snapshot', 's1') is first
    jobs.post_volume_flow('delete-snapshot', 's1')
    assert [(j.name, j.details['kind']) for j in posted] == [
        ('create-snapshot-s1', 'create-snapshot'),
        ('delete-snapshot-s1', 'delete-snapshot')]
    assert {j.details['action'] for j in posted} == {jobs.VOLUME_FLOW}
