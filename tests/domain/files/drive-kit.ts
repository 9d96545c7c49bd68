import { testServer, type TestServer } from '../../helpers/harness.js';
import { ok } from '../../helpers/calls.js';
import { ownerOf, person, type Person } from '../../helpers/people.js';

/*
 * The drive's test kit: a server with people of known standing (the admin owner, two members, an agent), and
 * short-hands for folders and inline uploads.
 */

export interface DriveOrg {
  s: TestServer;
  /** The org's creator: admin key, so manager of every file. */
  owner: Person;
  mia: Person;
  max: Person;
  agent: Person;
}

export async function driveOrg(opts: Parameters<typeof testServer>[0] = {}): Promise<DriveOrg> {
  const s = await testServer(opts);
  const owner = await ownerOf(s);
  return {
    s,
    owner,
    mia: await person(s, 'Mia Member', { tier: 'member' }),
    max: await person(s, 'Max Member', { tier: 'member' }),
    agent: await person(s, 'Agent A', { tier: 'agent' }),
  };
}

export async function folder(s: TestServer, key: string, name: string, extra: Record<string, unknown> = {}): Promise<any> {
  return (await ok(s, 'files.create', { kind: 'folder', name, ...extra }, key)).file;
}

export async function upload(s: TestServer, key: string, name: string, bytes: Buffer | string, extra: Record<string, unknown> = {}): Promise<any> {
  const contentBase64 = Buffer.from(bytes).toString('base64');
  return (await ok(s, 'files.uploadRegister', { name, contentBase64, ...extra }, key)).file;
}

/** PUT bytes to /api/v1/blobs as `key`: the blob's sha256 and size. */
export async function putBlob(
  s: TestServer,
  key: string,
  body: Buffer | NodeJS.ReadableStream,
  contentType = 'application/octet-stream',
): Promise<{ sha256: string; size: number }> {
  const res = await s.app.inject({
    method: 'PUT',
    url: '/api/v1/blobs',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    payload: body,
  });
  if (res.statusCode >= 300) throw new Error(`PUT blob: ${res.statusCode} ${res.body}`);
  const r = res.json().result;
  return { sha256: r.sha256, size: r.size };
}

/** GET a path (a signed URL's) from the app: status and bytes. */
export async function download(s: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await s.app.inject({ method: 'GET', url: path.replace(/^https?:\/\/[^/]+/, ''), headers });
  return { status: res.statusCode, bytes: res.rawPayload, headers: res.headers };
}

/** A minimal one-page PDF showing `text` (Helvetica): sniffed as application/pdf, its text extractable. */
export function tinyPdf(text: string, padding = 0): Buffer {
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
  ];
  const stream = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  objs.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.concat([Buffer.from(out, 'latin1'), Buffer.alloc(padding, 0x0a)]);
}
