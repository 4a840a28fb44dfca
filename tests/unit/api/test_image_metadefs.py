"""Glance's metadata definitions: namespaces and their objects, properties, tags and
resource type associations; admins change them, everyone reads the public ones."""

NS = '/image/v2/metadefs/namespaces'


def _namespace(client, name='OS::Test::One', **extra):
    made = client.post(NS, dict({'namespace': name, 'visibility': 'public'}, **extra))
    assert made.status_int == 201, made.text
    return made.json


def test_a_namespace_lives_from_create_to_delete(admin_client, member_client):
    types = admin_client.get('/image/v2/metadefs/resource_types').json['resource_types']
    made = _namespace(admin_client, protected=True, description='d',
                      resource_type_associations=[{'name': types[0]['name']}])
    assert made['resource_type_associations'][0]['name'] == types[0]['name']
    assert member_client.post(NS, {'namespace': 'x'}).status_int == 403
    assert admin_client.post(NS, {'namespace': 'OS::Test::One'}).status_int == 409
    listed = member_client.get(NS).json['namespaces']
    assert [n['namespace'] for n in listed] == ['OS::Test::One']
    assert admin_client.delete(NS + '/OS::Test::One').status_int == 403  # protected
    changed = admin_client.put(NS + '/OS::Test::One', {
        'namespace': 'OS::Test::One', 'visibility': 'private', 'protected': False}).json
    assert (changed['visibility'], changed['protected']) == ('private', False)
    assert member_client.get(NS + '/OS::Test::One').status_int == 404  # another's
    assert admin_client.delete(NS + '/OS::Test::One').status_int == 204
    assert admin_client.get(NS + '/OS::Test::One').status_int == 404


def test_objects_properties_tags_and_associations(admin_client):
    _namespace(admin_client)
    base = NS + '/OS::Test::One'
    assert admin_client.post(base + '/objects', {'name': 'o1'}).status_int == 201
    assert admin_client.post(base + '/objects', {'name': 'o1'}).status_int == 409
    renamed = admin_client.put(base + '/objects/o1', {'name': 'o2'}).json
    assert renamed['name'] == 'o2'
    assert [o['name'] for o in admin_client.get(base + '/objects').json['objects']] == [
        'o2']
    assert admin_client.delete(base + '/objects/o2').status_int == 204
    prop = admin_client.post(base + '/properties', {
        'name': 'hypervisor', 'title': 'H', 'type': 'string', 'enum': ['kvm']}).json
    assert prop['title'] == 'H'
    assert admin_client.get(base + '/properties/hypervisor').json['name'] == 'hypervisor'
    assert admin_client.put(base + '/properties/hypervisor', {
        'name': 'hypervisor', 'title': 'H2', 'type': 'string'}).json['title'] == 'H2'
    assert admin_client.delete(base + '/properties/hypervisor').status_int == 204
    assert admin_client.get(base + '/properties').json == {'properties': {}}
    tags = admin_client.post(base + '/tags', {'tags': [{'name': 'a'}, {'name': 'b'}]})
    assert [t['name'] for t in tags.json['tags']] == ['a', 'b']
    assert admin_client.post(base + '/tags/c').status_int == 201
    assert admin_client.put(base + '/tags/c', {'name': 'd'}).json['name'] == 'd'
    assert admin_client.get(base + '/tags/c').status_int == 404
    assert admin_client.delete(base + '/tags').status_int == 204
    assert admin_client.get(base + '/tags').json == {'tags': []}
    assert admin_client.post(base + '/resource_types', {
        'name': 'OS::Nova::Flavor', 'prefix': 'hw:'}).status_int == 201
    associated = admin_client.get(base + '/resource_types').json
    assert [a['name'] for a in associated['resource_type_associations']] == [
        'OS::Nova::Flavor']
    assert admin_client.delete(base + '/resource_types/OS::Nova::Flavor').status_int \
        == 204


def test_the_schema_documents_are_named_as_glances(member_client):
    for kind, name in (('namespace', 'namespace'), ('namespaces', 'namespaces'),
                       ('resource_type', 'resource_type_association'),
                       ('resource_types', 'resource_type_associations'),
                       ('object', 'object'), ('objects', 'objects'),
                       ('property', 'property'), ('properties', 'properties'),
                       ('tag', 'tag'), ('tags', 'tags')):
        assert member_client.get('/image/v2/schemas/metadefs/' + kind).json[
            'name'] == name
    assert member_client.get('/image/v2/schemas/metadefs/nope').status_int == 404
