import { describe, expect, it } from 'vitest';
import { VideoLimits, videoProblem } from './video-rules.ts';

describe('videoProblem', () => {
  it('accepts a clip within every limit', () => {
    expect(videoProblem({ durationSeconds: 30, streams: 3, maxEditEntries: 1 })).toBeNull();
    expect(videoProblem({ durationSeconds: VideoLimits.maxSeconds, streams: VideoLimits.maxStreams, maxEditEntries: VideoLimits.maxEditEntries })).toBeNull();
  });

  it('refuses a missing or out-of-bounds duration as video_duration_invalid', () => {
    for (const durationSeconds of [null, Number.NaN, 0, 0.05, VideoLimits.maxSeconds + 0.001, 12_500, 2_000_000]) {
      expect(videoProblem({ durationSeconds, streams: 1 })?.code, String(durationSeconds)).toBe('video_duration_invalid');
    }
  });

  it('refuses absurd structure as video_too_complex, before looking at the duration', () => {
    expect(videoProblem({ durationSeconds: null, streams: VideoLimits.maxStreams + 1 })?.code).toBe('video_too_complex');
    expect(videoProblem({ durationSeconds: 30, streams: 1, maxEditEntries: 20_000 })).toMatchObject({ code: 'video_too_complex', message: expect.stringContaining('20000') });
  });
});
