import { describe, expect, it } from 'vitest';
import { parseDsn } from '../../../domain/email/inbound/dsn.js';
import { eximDsn, postfixDsn } from './dsn-kit.js';
import { mime } from './kit.js';

/*
 * The hand-written DSN parser (RFC 3464) over reports as Postfix and Exim write them: each recipient's address,
 * action, status and diagnostic, and the Message-ID of the message reported on; anything else is not a report.
 */

const original = async (id: string) =>
  mime({ from: 'Acme Sales <sales@acme.example>', to: 'ann@client.example, gone@client.example', subject: 'Quote', messageId: `<${id}>` });

describe('parseDsn', () => {
  it("reads Postfix's report: per recipient, the original's Message-ID from the returned message", async () => {
    const raw = postfixDsn({
      to: 'sales@acme.example',
      original: await original('q1@acme.example'),
      recipients: [
        {
          address: 'gone@client.example',
          action: 'failed',
          status: '5.1.1',
          diagnostic: '550 5.1.1 <gone@client.example>: Recipient address rejected: User unknown in local recipient table',
        },
        { address: 'Ann@Client.example', action: 'delivered', status: '2.0.0' },
      ],
    });
    expect(parseDsn(raw)).toEqual({
      reportingMta: 'mx.client.example',
      recipients: [
        {
          address: 'gone@client.example',
          action: 'failed',
          status: '5.1.1',
          diagnostic: '550 5.1.1 <gone@client.example>: Recipient address rejected: User unknown in local recipient table',
        },
        { address: 'ann@client.example', action: 'delivered', status: '2.0.0', diagnostic: null },
      ],
      originalIds: ['q1@acme.example'],
    });
  });

  it('a delay warning returns the headers only (text/rfc822-headers)', async () => {
    const raw = postfixDsn({
      to: 'sales@acme.example',
      original: await original('q2@acme.example'),
      recipients: [
        { address: 'slow@client.example', action: 'delayed', status: '4.4.1', diagnostic: 'connect to mx.client.example[192.0.2.10]:25: Connection timed out' },
      ],
    });
    expect(parseDsn(raw)).toMatchObject({
      recipients: [{ address: 'slow@client.example', action: 'delayed', status: '4.4.1' }],
      originalIds: ['q2@acme.example'],
    });
  });

  it("reads Exim's: Status 5.0.0 gives way to the remote server's 5.1.1; In-Reply-To when nothing is returned", () => {
    const headers = 'Message-ID: <q3@acme.example>\r\nResent-Message-ID: <r3@acme.example>\r\nFrom: sales@acme.example\r\nSubject: Quote\r\n';
    const dsn = parseDsn(
      eximDsn({
        to: 'sales@acme.example',
        originalHeaders: headers,
        recipient: 'gone@client.example',
        diagnostic: '550 5.1.1 <gone@client.example>: no such user',
      }),
    );
    expect(dsn).toMatchObject({
      reportingMta: 'relay.client.example',
      recipients: [{ address: 'gone@client.example', action: 'failed', status: '5.1.1' }],
      originalIds: ['q3@acme.example', 'r3@acme.example'],
    });
    const bare = parseDsn(
      eximDsn({
        to: 'sales@acme.example',
        originalHeaders: 'Subject: Quote\r\n',
        recipient: 'x@client.example',
        diagnostic: '550 rejected',
        inReplyTo: 'q4@acme.example',
      }),
    );
    expect(bare).toMatchObject({ recipients: [{ status: '5.0.0' }], originalIds: ['q4@acme.example'] });
  });

  it('finds a report inside a multipart/mixed, decodes a base64 status part, and unfolds its fields', () => {
    const status = Buffer.from(
      'Reporting-MTA: dns; mx.example\r\n\r\nFinal-Recipient: rfc822;\r\n  bob@client.example\r\nAction: Failed (permanent)\r\nStatus: 5.2.2 (mailbox full)\r\n',
    ).toString('base64');
    const raw = Buffer.from(
      [
        'From: postmaster@client.example',
        'Subject: Returned mail',
        'In-Reply-To: <q5@acme.example>',
        'Content-Type: multipart/mixed; boundary="outer"',
        '',
        '--outer',
        'Content-Type: multipart/report; report-type=Delivery-Status; boundary="inner;1"',
        '',
        '--inner;1',
        'Content-Type: text/plain',
        '',
        'Your mail was returned.',
        '--inner;1',
        'Content-Type: message/delivery-status',
        'Content-Transfer-Encoding: base64',
        '',
        status,
        '--inner;1--',
        '--outer--',
        '',
      ].join('\r\n'),
    );
    expect(parseDsn(raw)).toEqual({
      reportingMta: 'mx.example',
      recipients: [{ address: 'bob@client.example', action: 'failed', status: '5.2.2', diagnostic: null }],
      originalIds: ['q5@acme.example'],
    });
  });

  it('anything else is not a report: plain mail, another report type, a report naming no recipient, garbage', async () => {
    expect(parseDsn(await mime({ to: 'sales@acme.example', subject: 'Undelivered Mail Returned to Sender' }))).toBeNull();
    const mdn = (type: string, body: string) =>
      Buffer.from(
        `Content-Type: multipart/report; report-type=${type}; boundary=b\r\n\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\n${body}\r\n--b--\r\n`,
      );
    expect(parseDsn(mdn('disposition-notification', 'Final-Recipient: rfc822; a@b.example\r\nAction: failed\r\nStatus: 5.1.1'))).toBeNull();
    expect(parseDsn(mdn('delivery-status', 'Reporting-MTA: dns; mx.example'))).toBeNull();
    expect(parseDsn(mdn('delivery-status', 'Final-Recipient: rfc822; a@b.example\r\nAction: exploded'))).toBeNull();
    expect(parseDsn(Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a, 0x2d, 0x2d]))).toBeNull();
  });
});
