import type pg from 'pg';

/** Where each field of the current row lies in its message: start offsets and byte lengths (-1 for NULL). */
export interface RowFields {
  starts: Int32Array;
  lengths: Int32Array;
}

// PostgreSQL's binary COPY format: an 11-byte signature, a flags word and a header-extension length, then
// per row a field count and, per field, a length and that many bytes; a field count of -1 ends the data.
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * Run `COPY (...) TO STDOUT (FORMAT binary)` with `fieldCount` columns on a client of the caller's own and hand
 * each row to onRow as its message arrives: the field bytes as PostgreSQL sent them, no per-field strings or
 * per-row objects. onRow runs synchronously inside the socket's data handler, so the socket is not read while
 * rows are processed and memory stays flat. The buffer is only valid during the call. Once onRow returns
 * false, the rest of the result is read and dropped. Resolves with the number of rows read.
 */
export function copyRows(client: pg.Client, sql: string, fieldCount: number, onRow: (row: Buffer, fields: RowFields) => boolean): Promise<number> {
  const fields: RowFields = { starts: new Int32Array(fieldCount), lengths: new Int32Array(fieldCount) };
  let headerRead = false;
  let ended = false;
  let wanted = true;
  let rows = 0;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(rows);
    };
    // Each CopyData message from the server holds whole rows (PostgreSQL sends one row per message; the
    // header rides with the first row, the end marker comes last).
    const onMessage = (msg: Buffer): void => {
      let pos = 0;
      if (!headerRead) {
        if (msg.length < 19 || !msg.subarray(0, 11).equals(SIGNATURE)) throw new Error('COPY: not PostgreSQL binary format');
        pos = 19 + msg.readInt32BE(15);
        headerRead = true;
      }
      while (pos < msg.length) {
        const count = msg.readInt16BE(pos);
        pos += 2;
        if (count === -1) {
          ended = true;
          continue;
        }
        if (count !== fieldCount || ended) throw new Error(`COPY: unexpected row of ${count} fields`);
        for (let i = 0; i < fieldCount; i++) {
          const length = msg.readInt32BE(pos);
          fields.starts[i] = pos + 4;
          fields.lengths[i] = length;
          pos += 4 + Math.max(length, 0);
        }
        if (pos > msg.length) throw new Error('COPY: row split across messages');
        rows++;
        if (wanted) wanted = onRow(msg, fields);
      }
    };
    const query = {
      submit(connection: { query(text: string): void }) {
        connection.query(sql);
      },
      handleCopyData(msg: { chunk: Buffer }) {
        if (settled) return;
        try {
          onMessage(msg.chunk);
        } catch (err) {
          settle(err as Error);
        }
      },
      handleCommandComplete() {},
      handleReadyForQuery() {
        settle(ended ? undefined : new Error('COPY: result ended without its end marker'));
      },
      handleError(err: Error) {
        settle(err);
      },
    };
    client.query(query as unknown as pg.Submittable);
  });
}
