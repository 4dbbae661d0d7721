#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the hand-made accept/reject GradientCheckpoint inputs of spec §2.3 into cases/.

The expected outcome of every case (cases/expected.tsv) was produced by loading each file with
serde_json 1.0.87 + serde 1.0.152 (Debian crates) into structs mirroring ipfrs-tensorlogic 0.2.0:
    serdegen cases/*.json > cases/expected.tsv
(the mirror program is the 15-line main.rs quoted in tests/bench/graph/README.md)."""
import json, os

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, 'cases')
os.makedirs(out, exist_ok=True)

def node(i, op, inputs, output, grad=None, meta=None):
    return {'id': i, 'op': op, 'input_cids': inputs, 'output_cid': output, 'gradient_cid': grad, 'metadata': meta or {}}

def base():
    return {'graph': {'nodes': {'a': node('a', 'input', [], 'c1'), 'b': node('b', 'relu', ['c1'], 'c2')},
                      'edges': [['a', 'b']]},
            'step': 7, 'loss_cid': 'c2', 'optimizer_state': {'w/exp_avg': [0, 0, 128, 63]}, 'timestamp': 1767225600}

def pretty(v):
    return json.dumps(v, indent=2, ensure_ascii=False)

cases = {}
cases['accept_base'] = pretty(base())
cases['accept_compact'] = json.dumps(base(), separators=(',', ':'))
c = base(); c['extra'] = {'deep': [1, 2, {'x': None}]}; c['graph']['nodes']['a']['unknown'] = 5
cases['accept_unknown_fields'] = pretty(c)
c = base(); del c['loss_cid']; del c['graph']['nodes']['a']['output_cid']; del c['graph']['nodes']['b']['gradient_cid']
cases['accept_missing_options'] = pretty(c)
cases['accept_whitespace'] = ' \n\t' + json.dumps(base(), indent=5) + ' \r\n '
cases['accept_escapes'] = pretty(base()).replace('"relu"', '"r\\u00e9lu \\ud83d\\ude00 \\n"')
cases['accept_duplicate_map_key'] = pretty(base()).replace('"w/exp_avg": [', '"w/exp_avg": [1],\n    "w/exp_avg": [')
c = base(); c['graph']['nodes']['zz'] = c['graph']['nodes'].pop('b')
cases['accept_key_not_id'] = pretty(c)
c = base(); c['graph']['edges'].append(['a', 'ghost'])
cases['accept_dangling_edges'] = pretty(c)
c = base(); cases['accept_struct_as_array'] = json.dumps([c['graph'], 7, None, {}, 1])
c = base(); c['step'] = 18446744073709551615; c['timestamp'] = 9007199254740993
cases['accept_u64_extremes'] = pretty(c)
cases['reject_negative_zero'] = pretty(base()).replace('"step": 7', '"step": -0')

cases['reject_bom'] = '\ufeff' + pretty(base())
cases['reject_empty'] = ''
cases['reject_trailing'] = pretty(base()) + ' x'
cases['reject_second_value'] = pretty(base()) + '\n{}'
cases['reject_comment'] = '// c\n' + pretty(base())
cases['reject_trailing_comma'] = pretty(base()).replace('"timestamp": 1767225600', '"timestamp": 1767225600,')
for f in ['graph', 'step', 'optimizer_state', 'timestamp']:
    c = base(); del c[f]; cases['reject_missing_' + f] = pretty(c)
for f in ['nodes', 'edges']:
    c = base(); del c['graph'][f]; cases['reject_missing_' + f] = pretty(c)
for f in ['id', 'op', 'input_cids', 'metadata']:
    c = base(); del c['graph']['nodes']['b'][f]; cases['reject_missing_node_' + f] = pretty(c)
cases['reject_duplicate_step'] = pretty(base()).replace('"step": 7,', '"step": 7,\n  "step": 8,')
cases['reject_duplicate_node_op'] = pretty(base()).replace('"op": "relu",', '"op": "relu",\n        "op": "relu",')
for name, blob in [('256', '256'), ('negative', '-1'), ('float', '1.0'), ('string', '"AAAA"'), ('null', 'null'),
                   ('elem_string', '["1"]'), ('elem_null', '[null]'), ('elem_bool', '[true]'), ('elem_array', '[[1]]')]:
    s = pretty(base())
    if name in ('string', 'null') or name.startswith('elem_'):
        s = s.replace('"w/exp_avg": [\n      0,\n      0,\n      128,\n      63\n    ]', '"w/exp_avg": ' + blob)
    else:
        s = s.replace('      128,', '      ' + blob + ',')
    cases['reject_blob_' + name] = s
for name, v in [('string', '"7"'), ('float', '7.0'), ('exponent', '1e2'), ('negative', '-7'),
                ('too_big', '18446744073709551616'), ('very_negative', '-99999999999999999999'), ('null', 'null'),
                ('bool', 'true'), ('array', '[7]'), ('object', '{}')]:
    cases['reject_step_' + name] = pretty(base()).replace('"step": 7', '"step": ' + v)
cases['reject_timestamp_float'] = pretty(base()).replace('"timestamp": 1767225600', '"timestamp": 1.5e-7')
cases['reject_edge_one'] = pretty(base()).replace('[\n      [\n        "a",\n        "b"\n      ]\n    ]', '[["a"]]')
cases['reject_edge_three'] = pretty(base()).replace('[\n      [\n        "a",\n        "b"\n      ]\n    ]', '[["a", "b", "c"]]')
cases['reject_edge_object'] = pretty(base()).replace('[\n      [\n        "a",\n        "b"\n      ]\n    ]', '[{"from": "a", "to": "b"}]')
cases['reject_edge_number'] = pretty(base()).replace('[\n      [\n        "a",\n        "b"\n      ]\n    ]', '[["a", 2]]')
c = base(); c['graph']['nodes'] = list(c['graph']['nodes'].values()); cases['reject_nodes_array'] = pretty(c)
cases['reject_control_char'] = pretty(base()).replace('"relu"', '"re\tlu"')
cases['reject_lone_surrogate'] = pretty(base()).replace('"relu"', '"\\ud800"')
c = base(); c['graph']['nodes']['b']['output_cid'] = 5; cases['reject_output_cid_int'] = pretty(c)
c = base(); c['graph']['nodes']['b']['metadata'] = {'k': 1}; cases['reject_metadata_value_int'] = pretty(c)
c = base(); c['graph']['nodes']['b']['input_cids'] = 'c1'; cases['reject_input_cids_string'] = pretty(c)
c = base(); c['graph'] = 'g'; cases['reject_graph_string'] = pretty(c)
c = base(); c['loss_cid'] = ['x']; cases['reject_loss_cid_array'] = pretty(c)
c = base(); c['graph']['nodes']['b'] = 'quote " and \\ back'; cases['reject_node_string_escapes'] = pretty(c)
c = base(); cases['reject_struct_array_short'] = json.dumps([c['graph'], 7])
c = base(); cases['reject_struct_array_long'] = json.dumps([c['graph'], 7, None, {}, 1, 2])
c = base(); c['extra'] = json.loads('[' * 130 + ']' * 130); cases['accept_deep_unknown_field'] = json.dumps(c)

for name, text in cases.items():
    with open(os.path.join(out, name + '.json'), 'wb') as f:
        f.write(text.encode('utf-8'))
# invalid UTF-8 cannot go through str
with open(os.path.join(out, 'reject_invalid_utf8.json'), 'wb') as f:
    f.write(pretty(base()).encode().replace(b'"relu"', b'"re\xfflu"'))
