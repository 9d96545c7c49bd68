import { spawnSync } from 'node:child_process';

export { VOBJECT_MISSING } from '../../helpers/vcard.js';

/** A parsed property: name, value (structured values as objects, lists as arrays), parameters. */
export interface ParsedProperty {
  name: string;
  value: any;
  params: Record<string, string[]>;
}

/**
 * Parse vCards (3.0 or 4.0) with Debian's python3-vobject, keeping structure: N and ADR as objects of their
 * components, ORG and CATEGORIES as lists. Throws with vobject's error when it refuses the text.
 */
export function parseCards(text: string): ParsedProperty[][] {
  const script = `
import sys, json, vobject
def plain(v):
    if isinstance(v, vobject.vcard.Name):
        return {"family": v.family, "given": v.given, "additional": v.additional, "prefix": v.prefix, "suffix": v.suffix}
    if isinstance(v, vobject.vcard.Address):
        return {"box": v.box, "extended": v.extended, "street": v.street, "city": v.city, "region": v.region, "code": v.code, "country": v.country}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v if isinstance(v, str) else str(v)
out = []
for card in vobject.readComponents(sys.stdin.read()):
    out.append([{"name": l.name, "value": plain(l.value), "params": l.params} for l in card.getChildren()])
print(json.dumps(out))
`;
  const res = spawnSync('/usr/bin/python3', ['-c', script], { input: text, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`vobject refused the vCards: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

/** The first property of a name in a parsed card, and every one. */
export const prop = (card: ParsedProperty[], name: string) => card.find((p) => p.name === name);
export const props = (card: ParsedProperty[], name: string) => card.filter((p) => p.name === name);

/** Python's uuid.uuid5, for checking UIDs against an independent implementation. */
export function pythonUuid5(namespace: string, name: string): string {
  const res = spawnSync('/usr/bin/python3', ['-c', 'import sys, uuid; print(uuid.uuid5(uuid.UUID(sys.argv[1]), sys.argv[2]))', namespace, name], {
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return res.stdout.trim();
}
