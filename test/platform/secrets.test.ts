import { describe, expect, it } from 'vitest';
import { keyIdOf, newKeyText, parseKeys, SecretBox, sealedKeyId } from '../../src/platform/secrets.js';

const [a, b] = [parseKeys(newKeyText())[0] as Buffer, parseKeys(newKeyText())[0] as Buffer];

describe('the secret box (AES-256-GCM under a keyring)', () => {
  it('seals with the first key, names it, and opens with any key of the ring', () => {
    const sealed = new SecretBox([a]).seal('whsec_abc', 'owner:1');
    expect(sealedKeyId(sealed)).toBe(keyIdOf(a));
    expect(sealed).not.toContain('abc');
    expect(new SecretBox([b, a]).open(sealed, 'owner:1')).toBe('whsec_abc');
    expect(sealedKeyId(new SecretBox([b, a]).seal('x', 'owner:1'))).toBe(keyIdOf(b));
  });

  it('refuses, loudly, a value of a key not in the ring, of another context, or altered', () => {
    const sealed = new SecretBox([a]).seal('whsec_abc', 'owner:1');
    expect(() => new SecretBox([b]).open(sealed, 'owner:1')).toThrow(`sealed with key ${keyIdOf(a)}`);
    expect(() => new SecretBox([a]).open(sealed, 'owner:2')).toThrow('altered or moved');
    const body = sealed.split(':')[4] as string;
    const flipped = `${body.slice(0, 3)}${body[3] === 'A' ? 'B' : 'A'}${body.slice(4)}`;
    expect(() => new SecretBox([a]).open(sealed.replace(body, flipped), 'owner:1')).toThrow(
      'altered or moved',
    );
    expect(() => new SecretBox([a]).open('whsec_abc', 'owner:1')).toThrow('not a sealed value');
  });

  it('reads keyrings written with commas, spaces or new lines, and refuses a key of the wrong size', () => {
    const text = `${a.toString('base64')},\n ${b.toString('base64')}\n`;
    expect(parseKeys(text)).toEqual([a, b]);
    expect(() => parseKeys(Buffer.alloc(16).toString('base64'))).toThrow(
      'key 1 is not the base64 of 32 bytes',
    );
    expect(() => parseKeys(' \n')).toThrow('holds no key');
  });
});
