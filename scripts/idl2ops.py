#!/usr/bin/python3
"""idl2ops: derive the rows of common/core/ops.def from the WebNN WebIDL.

Usage: idl2ops.py webnn.idl            print the rows
       idl2ops.py --check webnn.idl common/core/ops.def
                                       exit 1 if ops.def's operands,
                                       parameters or option names differ
The IDL is the authority for names; ops.def adds what the IDL cannot say.
"""
import re
import sys


def parse(idl):
    enums = {}
    for m in re.finditer(r'enum (\w+) \{([^}]*)\};', idl):
        enums[m.group(1)] = re.findall(r'"([^"]*)"', m.group(2))
    dicts = {}
    for m in re.finditer(r'dictionary (\w+)(?: : (\w+))? \{([^}]*)\};', idl):
        members = []
        for line in m.group(3).split(';'):
            line = ' '.join(line.split())
            if not line:
                continue
            line = re.sub(r'\[EnforceRange\] ', '', line)
            line = re.sub(r'^required ', '', line)
            mm = re.match(r'(.+?) (\w+)(?: = (.+))?$', line)
            members.append((mm.group(2), mm.group(1), mm.group(3)))
        dicts[m.group(1)] = (m.group(2), members)
    methods = []
    for block in re.findall(r'partial interface MLGraphBuilder \{(.*?)\};',
                            idl, re.S):
        for m in re.finditer(r'(MLOperand|sequence<MLOperand>) (\w+)\((.*?)\);',
                             block, re.S):
            args = ' '.join(m.group(3).split())
            args = re.sub(r'\[EnforceRange\] ', '', args)
            parts = split_args(args)
            methods.append((m.group(2), m.group(1) != 'MLOperand', parts))
    return enums, dicts, methods


def split_args(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '<(':
            depth += 1
        elif ch in '>)':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def typ(t, enums):
    t = t.strip()
    if t == 'MLOperand':
        return 'operand'
    if t in ('unsigned long',):
        return 'u32'
    if t == 'long':
        return 'i32'
    if t in ('double', 'float', 'unrestricted double'):
        return 'f64'
    if t == 'boolean':
        return 'bool'
    if t == 'MLNumber':
        return 'number'
    if t == 'MLOperandDataType':
        return 'dtype'
    if t == 'USVString':
        return 'str'
    m = re.match(r'sequence<(.*)>$', t)
    if m:
        return typ(m.group(1), enums) + '[]'
    m = re.match(r'\((.*) or (.*)\)$', t)
    if m:
        return typ(m.group(1), enums) + '|' + typ(m.group(2), enums)
    if t in enums:
        return 'enum(' + '|'.join(enums[t]) + ')'
    raise SystemExit('idl2ops: unknown IDL type ' + t)


def rows(idl):
    enums, dicts, methods = parse(idl)
    out = []
    for name, multi, args in methods:
        operands, params, options = [], [], []
        for a in args:
            opt = a.startswith('optional ')
            a = re.sub(r'^optional ', '', a)
            a = re.sub(r' = \{\}$', '', a)
            t, n = a.rsplit(' ', 1)
            if opt:
                d = t
                chain = []
                while d:
                    chain.append(d)
                    d = dicts[d][0]
                for d in reversed(chain):
                    for mn, mt, mdef in dicts[d][1]:
                        if mn == 'label':
                            continue
                        s = mn + ':' + typ(mt, enums)
                        if mdef is not None:
                            s += '=' + mdef.strip('"')
                        options.append(s)
            elif t == 'MLOperand':
                operands.append(n)
            elif t == 'sequence<MLOperand>':
                operands.append(n + '...')
            else:
                params.append(n + ':' + typ(t, enums))
        out.append((name, ' '.join(operands), ' '.join(params),
                    ' '.join(options), 0 if multi else 1))
    return out


def enumid(name):
    return re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', name).upper()


def main():
    if sys.argv[1] == '--check':
        want = {r[0]: r for r in rows(open(sys.argv[2]).read())}
        have = {}
        for m in re.finditer(r'^OP\((\w+),\s*"(\w+)",\s*"([^"]*)",\s*'
                             r'"([^"]*)",\s*"([^"]*)",\s*(\d+)',
                             open(sys.argv[3]).read(), re.M | re.S):
            have[m.group(2)] = (m.group(2), m.group(3), m.group(4),
                                m.group(5), int(m.group(6)))
        bad = 0
        for k in sorted(set(want) | set(have)):
            w = want.get(k)
            h = have.get(k)
            if w is None or h is None:
                print('ops.def: %s: %s' % (k, 'not in the IDL' if w is None
                                          else 'missing'))
                bad = 1
            elif w != h:
                print('ops.def: %s differs from the IDL:\n  idl:  %r\n'
                      '  have: %r' % (k, w, h))
                bad = 1
        print('%d ops checked against the IDL' % len(want))
        sys.exit(bad)
    for name, ops, params, opts, nout in rows(open(sys.argv[1]).read()):
        print('OP(%s, "%s",\n   "%s", "%s",\n   "%s", %d)' % (
            enumid(name), name, ops, params, opts, nout))


if __name__ == '__main__':
    main()
