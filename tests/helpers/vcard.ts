import { spawnSync } from 'node:child_process';

const PY = '/usr/bin/python3';

/** Why the independent vCard parser cannot run here (Debian's python3-vobject is missing), or undefined. */
export const VOBJECT_MISSING =
  spawnSync(PY, ['-c', 'import vobject'], { encoding: 'utf8' }).status === 0 ? undefined : `${PY} cannot import vobject (apt-get install python3-vobject)`;

/** Parse vCards with Debian's python3-vobject: each card's properties as [name, unfolded and unescaped value, params]. */
export function parseWithVobject(text: string): { name: string; value: string; params: Record<string, string[]> }[][] {
  const script = `
import sys, json, vobject
out = []
for card in vobject.readComponents(sys.stdin.read()):
    props = []
    for line in card.getChildren():
        v = line.value
        if not isinstance(v, str):
            v = str(v)
        props.append({"name": line.name, "value": v, "params": line.params})
    out.append(props)
print(json.dumps(out))
`;
  const res = spawnSync(PY, ['-c', script], { input: text, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`vobject refused the vCard: ${res.stderr}`);
  return JSON.parse(res.stdout);
}
