import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../../../helpers/browser.js';
import { callOrg, startCall, type CallOrg } from './kit.js';
import { ok } from '../../../helpers/calls.js';

/*
 * The transcript as WebVTT, parsed by a real browser: headless Chromium loads calling.getTranscript's document as
 * a <track> and its TextTrack must hold every cue, with its times, its voice, and the text exactly as said
 * (`<`, `&` and `-->` survive the escaping; a blank line inside a line does not split its cue).
 */

warnIfNoChromium('tests/domain/messaging/calling/webvtt-browser.test.ts', "the transcript's WebVTT");

let o: CallOrg;
let browser: Browser;
beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  o = await callOrg();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await o?.s.close();
});

interface ParsedCue {
  id: string;
  start: number;
  end: number;
  voice: string | null;
  text: string;
}

/** Runs in the page (plain JavaScript: the tests compile without the DOM's types): load the document as a track, read its cues. */
const PARSE_IN_PAGE = `async (doc) => {
  const video = document.getElementById('v');
  const track = document.createElement('track');
  track.kind = 'captions';
  track.default = true;
  track.src = URL.createObjectURL(new Blob([doc], { type: 'text/vtt' }));
  const loaded = new Promise((resolve, reject) => {
    track.addEventListener('load', () => resolve());
    track.addEventListener('error', () => reject(new Error('the WebVTT document did not load')));
  });
  video.appendChild(track);
  track.track.mode = 'hidden';
  await loaded;
  return Array.from(track.track.cues).map((cue) => {
    const html = cue.getCueAsHTML();
    const voice = html.querySelector('span[title]');
    return { id: cue.id, start: cue.startTime, end: cue.endTime, voice: voice ? voice.getAttribute('title') : null, text: html.textContent };
  });
}`;

describe.skipIf(!HAVE_CHROMIUM)("the transcript in Chromium's TextTrack", () => {
  it('every cue parses with its times, voice and exact text', async () => {
    const { call } = await startCall(o);
    await ok(o.s, 'calling.join', { callId: call.id }, o.mia.key);
    const lines = [
      { speaker: o.mia.id, text: 'Revenue is < plan & costs --> up', startMs: 0, endMs: 2000 },
      { speakerLabel: 'Guest <Acme> & Co', text: 'First line\n\nsecond line after a blank one', startMs: 2000, endMs: 3250 },
      { speaker: o.mia.id, text: 'A long meeting: <b>not bold</b>', startMs: 3_723_004, endMs: 3_725_000 },
    ];
    for (const line of lines) await ok(o.s, 'calling.addTranscriptLine', { callId: call.id, ...line }, o.mia.key);
    const { webvtt } = await ok(o.s, 'calling.getTranscript', { callId: call.id, format: 'webvtt' }, o.mia.key);

    const page = await browser.newPage();
    try {
      await page.setContent('<!DOCTYPE html><html><body><video id="v" muted></video></body></html>');
      const cues = await page.evaluate<ParsedCue[]>(`(${PARSE_IN_PAGE})(${JSON.stringify(webvtt)})`);
      expect(cues).toHaveLength(3);
      expect(cues[0]).toMatchObject({ start: 0, end: 2, voice: 'Mia Member', text: 'Revenue is < plan & costs --> up' });
      expect(cues[0].id).toMatch(/^tl_/);
      expect(cues[1]).toMatchObject({ start: 2, end: 3.25, voice: 'Guest <Acme> & Co', text: 'First line\nsecond line after a blank one' });
      expect(cues[2]).toMatchObject({ start: 3723.004, end: 3725, voice: 'Mia Member', text: 'A long meeting: <b>not bold</b>' });
    } finally {
      await page.close();
    }
  });
});
