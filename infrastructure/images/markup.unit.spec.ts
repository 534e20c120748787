import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markupInMetadata, servableAsIs } from './markup.ts';

/** A JPEG with one more APPn segment right after SOI, the way editing software writes metadata. */
const withSegment = (jpeg: Buffer, marker: number, payload: string): Buffer => {
  const data = Buffer.from(payload, 'latin1');
  const header = Buffer.from([0xff, marker, 0, 0]);
  header.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, data, jpeg.subarray(2)]);
};

// The smallest baseline JPEG there is (1×1, grey), enough for the segment walk.
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

// Photoshop's APP13 carries its print settings as an XML property list.
const PHOTOSHOP_PLIST =
  'Photoshop 3.0\u00008BIM\u0004\u0004<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd"><plist version="1.0"><dict><key>com.apple.print.PageFormat</key><real>1</real></dict></plist>';

describe('markup in a photo\'s metadata', () => {
  it('does not refuse a photo whose metadata holds only a DOCTYPE (Photoshop\'s plist), but never serves it as is', () => {
    const photo = withSegment(JPEG, 0xed, PHOTOSHOP_PLIST);
    expect(markupInMetadata(photo, 'jpg')).toBe(false);
    expect(servableAsIs(photo, 'jpg')).toBe(false);
  });

  it('refuses an element a browser acts on in a comment or an APPn segment', () => {
    expect(markupInMetadata(withSegment(JPEG, 0xfe, 'nice cat <body onload=alert(1)>'), 'jpg')).toBe(true);
    expect(markupInMetadata(withSegment(JPEG, 0xed, `${PHOTOSHOP_PLIST}<script>alert(1)</script>`), 'jpg')).toBe(true);
  });

  it('accepts the Oxford-IIIT Pet sample photos that Photoshop saved', () => {
    const dir = new URL('../../../shared/datasets/oxford-pets-sample/images/', import.meta.url);
    let photo: Buffer;
    try {
      photo = readFileSync(new URL('Siamese_153.jpg', dir));
    } catch {
      return; // the dataset is beside the checkout in CI and on developers' machines
    }
    expect(photo.includes('<!DOCTYPE')).toBe(true);
    expect(markupInMetadata(photo, 'jpg')).toBe(false);
  });
});

describe('signatures inside compressed pixel data', () => {
  const dataset = new URL('../../../shared/datasets/oxford-pets-sample/images/', import.meta.url);

  it('do not make a polyglot: a plain photo whose scan data holds `<SVG` by chance is accepted', async () => {
    const { polyglotReason } = await import('./polyglot.ts');
    let photo: Buffer;
    try {
      photo = readFileSync(new URL('english_setter_169.jpg', dataset));
    } catch {
      return; // the dataset is beside the checkout in CI and on developers' machines
    }
    expect(photo.toString('latin1').toUpperCase().includes('<SVG')).toBe(true);
    expect(polyglotReason(photo, 'jpg')).toBeNull();
  });

  it('still make one outside the pixel data: in a segment, or with the structure broken', async () => {
    const { polyglotReason } = await import('./polyglot.ts');
    expect(polyglotReason(withSegment(JPEG, 0xe5, 'x <svg onload=alert(1)>'), 'jpg')).toMatch(/svg/);
    expect(polyglotReason(withSegment(JPEG, 0xe5, 'PK\u0003\u0004 an archive'), 'jpg')).toMatch(/zip/);
    expect(polyglotReason(Buffer.concat([JPEG.subarray(0, 2), Buffer.from('<script>x</script>'), JPEG.subarray(2)]), 'jpg')).toMatch(/script/);
  });
});
