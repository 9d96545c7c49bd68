/*
 * Delivery status notifications as real mail servers write them, for the bounce tests: Postfix's (the original
 * returned whole as message/rfc822; a delay warning with its headers only) and Exim's (the headers only, as
 * text/rfc822-headers, Status 5.0.0 and the real code in the Diagnostic-Code). CRLF line ends, as on the wire.
 */

export interface DsnRecipientSpec {
  address: string;
  action: 'failed' | 'delayed' | 'delivered';
  status: string;
  diagnostic?: string;
}

const crlf = (lines: string[]) => lines.join('\r\n');

/** What Postfix's bounce(8) sends the envelope sender when a queued message fails (or is delayed). */
export function postfixDsn(o: { to: string; original: Buffer; recipients: DsnRecipientSpec[]; queueId?: string; mta?: string }): Buffer {
  const mta = o.mta ?? 'mx.client.example';
  const queueId = o.queueId ?? `4F${Math.random().toString(16).slice(2, 10).toUpperCase()}`;
  const boundary = `${queueId}.1764497410/${mta}`;
  const delayed = o.recipients.every((r) => r.action === 'delayed');
  const head = crlf([
    `Date: ${new Date().toUTCString().replace('GMT', '+0000 (UTC)')}`,
    `From: MAILER-DAEMON@${mta} (Mail Delivery System)`,
    `Subject: ${delayed ? 'Delayed Mail (still being retried)' : 'Undelivered Mail Returned to Sender'}`,
    `To: ${o.to}`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status;',
    `\tboundary="${boundary}"`,
    'Content-Transfer-Encoding: 8bit',
    `Message-Id: <20261130101010.${queueId}@${mta}>`,
    '',
    'This is a MIME-encapsulated message.',
    '',
    `--${boundary}`,
    'Content-Description: Notification',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    `This is the mail system at host ${mta}.`,
    '',
    delayed
      ? '####################################################################\r\n# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\r\n####################################################################'
      : "I'm sorry to have to inform you that your message could not\r\nbe delivered to one or more recipients. It's attached below.",
    '',
    'For further assistance, please send mail to postmaster.',
    '',
    '                   The mail system',
    '',
    ...o.recipients.map((r) => `<${r.address}>: host ${mta}[192.0.2.10] said: ${r.diagnostic ?? r.status} (in reply to RCPT TO command)`),
    '',
    `--${boundary}`,
    'Content-Description: Delivery report',
    'Content-Type: message/delivery-status',
    '',
    `Reporting-MTA: dns; ${mta}`,
    `X-Postfix-Queue-ID: ${queueId}`,
    `X-Postfix-Sender: rfc822; ${o.to}`,
    'Arrival-Date: Mon, 30 Nov 2026 10:10:09 +0000 (UTC)',
    '',
    ...o.recipients.flatMap((r) => [
      `Final-Recipient: rfc822; ${r.address}`,
      `Original-Recipient: rfc822;${r.address}`,
      `Action: ${r.action}`,
      `Status: ${r.status}`,
      `Remote-MTA: dns; ${mta}`,
      ...(r.diagnostic ? [`Diagnostic-Code: smtp; ${r.diagnostic.slice(0, 60)}`, `    ${r.diagnostic.slice(60)}`] : []),
      '',
    ]),
    `--${boundary}`,
    `Content-Description: ${delayed ? 'Undelivered Message Headers' : 'Undelivered Message'}`,
    `Content-Type: ${delayed ? 'text/rfc822-headers' : 'message/rfc822'}`,
    'Content-Transfer-Encoding: 8bit',
    '',
    '',
  ]);
  const original = delayed ? o.original.subarray(0, o.original.indexOf('\r\n\r\n') + 2) : o.original;
  return Buffer.concat([Buffer.from(head, 'latin1'), original, Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1')]);
}

/** Exim's failure report: the original's headers only; Status 5.0.0, the enhanced code in the remote server's reply. */
export function eximDsn(o: { to: string; originalHeaders: string; recipient: string; diagnostic: string; inReplyTo?: string }): Buffer {
  const boundary = '1764497410-eximdsn-1804289383';
  return Buffer.from(
    crlf([
      'From: Mail Delivery System <Mailer-Daemon@relay.client.example>',
      `To: ${o.to}`,
      'Subject: Mail delivery failed: returning message to sender',
      `Message-Id: <E1vP0aB-000AbC-Xy@relay.client.example>`,
      ...(o.inReplyTo ? [`In-Reply-To: <${o.inReplyTo}>`, `References: <${o.inReplyTo}>`] : []),
      'Auto-Submitted: auto-replied',
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type="delivery-status"; boundary=${boundary}`,
      '',
      `--${boundary}`,
      'Content-type: text/plain; charset=us-ascii',
      '',
      'This message was created automatically by mail delivery software.',
      '',
      `  ${o.recipient}`,
      `    ${o.diagnostic}`,
      '',
      `--${boundary}`,
      'Content-type: message/delivery-status',
      '',
      'Reporting-MTA: dns; relay.client.example',
      '',
      `Action: failed`,
      `Final-Recipient: rfc822;${o.recipient}`,
      `Status: 5.0.0`,
      `Remote-MTA: dns; mx.client.example`,
      `Diagnostic-Code: smtp; ${o.diagnostic}`,
      '',
      `--${boundary}`,
      'Content-type: text/rfc822-headers',
      '',
      o.originalHeaders.trimEnd(),
      '',
      `--${boundary}--`,
      '',
    ]),
    'latin1',
  );
}
