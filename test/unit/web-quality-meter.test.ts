import { describe, expect, it } from 'vitest';
import { QualityMeter, fragmentKbps } from '../../web/src/viewer/quality-meter';

/** Enough of a `<video>` for the meter: events, `seeking`, `error` and the dropped-frame count. */
class FakeVideo extends EventTarget {
  seeking = false;
  error: { code: number } | null = null;
  dropped = 0;
  getVideoPlaybackQuality() {
    return { droppedVideoFrames: this.dropped };
  }
  fire(name: string) {
    this.dispatchEvent(new Event(name));
  }
}

function meterOn() {
  let now = 0;
  const video = new FakeVideo();
  const meter = new QualityMeter(() => now);
  meter.attach(video as unknown as HTMLVideoElement);
  return { video, meter, wait: (ms: number) => (now += ms) };
}

describe('quality meter', () => {
  it('measures a fragment\'s bit rate from its bytes and duration, not a declared peak', () => {
    // A 2 s fragment of a 2.5 Mbit/s stream.
    expect(fragmentKbps(625_000, 2)).toBe(2500);
    expect(fragmentKbps(0, 2)).toBeUndefined();
    expect(fragmentKbps(625_000, 0)).toBeUndefined();
  });

  it('measures start-up once, playing and stalled time, stalls, the rendition, dropped frames and errors, per take', () => {
    const { video, meter, wait } = meterOn();
    expect(meter.take()).toBeNull();
    meter.starting();
    wait(600);
    // Waiting before the first frame is start-up, not a stall; so is hls.js's seek to the live edge.
    video.fire('seeking');
    wait(600);
    video.fire('waiting');
    video.fire('playing');
    meter.rendition(2500);
    wait(10_000);
    video.fire('waiting');
    wait(2_000);
    video.fire('playing');
    meter.rendition(800);
    wait(10_000);
    video.dropped = 7;
    meter.error('fragLoadError', false);
    meter.error('fragLoadError', false);
    meter.error('bufferAppendError', false);
    expect(meter.take()).toEqual({
      playingMs: 20_000,
      stalledMs: 2_000,
      stalls: 1,
      startupMs: 1200,
      bitrateKbps: 1650,
      droppedFrames: 7,
      errors: { count: 3, types: { fragLoadError: 2, bufferAppendError: 1 } },
    });

    // A pause and a seek are neither playing nor stalled; start-up is not measured again.
    video.fire('pause');
    wait(5_000);
    meter.starting();
    video.seeking = true;
    video.fire('seeking');
    video.fire('waiting');
    wait(1_000);
    video.seeking = false;
    video.fire('playing');
    wait(3_000);
    video.error = { code: 2 };
    video.fire('error');
    expect(meter.take()).toEqual({ playingMs: 3_000, stalledMs: 0, stalls: 0, bitrateKbps: 800, droppedFrames: 0, errors: { count: 1, lastFatal: 'MEDIA_ERR_NETWORK', types: { MEDIA_ERR_NETWORK: 1 } } });
  });

  it('takes back a report that could not be sent, into the next one', () => {
    const { video, meter, wait } = meterOn();
    meter.starting();
    wait(500);
    video.fire('playing');
    wait(30_000);
    meter.error('fragLoadError', false);
    const lost = meter.take()!;
    meter.giveBack(lost);
    wait(30_000);
    meter.error('fragLoadError', false);
    expect(meter.take()).toMatchObject({ playingMs: 60_000, startupMs: 500, errors: { count: 2, types: { fragLoadError: 2 } } });
  });
});
