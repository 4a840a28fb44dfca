"""Nova's volume attachment shape at 2.1: ``id`` and ``volumeId`` are the volume's id."""


def attachment(instance_id, volume_id, device):
    return {'id': volume_id, 'volumeId': volume_id, 'serverId': instance_id,
            'device': device}
