import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_CREDENTIAL = 0x40;

const b64 = (bytes: Uint8Array | string) =>
  isoBase64URL.fromBuffer(new Uint8Array(typeof bytes === 'string' ? Buffer.from(bytes) : bytes));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

/**
 * A passkey in software, as a platform authenticator would answer: an EC P-256 key (ES256), attestation `none`,
 * assertions signed over the authenticator data and the client data's hash, and a counter moving on by one per
 * use. `origin` and `rpId` are what a browser would put in, so a test can also answer as another site would.
 */
export class SoftwareAuthenticator {
  private readonly credentialId = randomBytes(16);
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  private counter = 0;
  private userHandle: string | null = null;

  constructor(
    private readonly origin: string,
    private readonly rpId: string,
    private readonly verifiesUser = true,
  ) {}

  get id(): string {
    return b64(this.credentialId);
  }

  /** The answer of navigator.credentials.create to registration options. */
  create(options: { challenge: string; user: { id: string } }) {
    this.userHandle = options.user.id;
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, isoBase64URL.toBuffer(jwk.x ?? '')],
      [-3, isoBase64URL.toBuffer(jwk.y ?? '')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.header(ATTESTED_CREDENTIAL),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      isoCBOR.encode(cose),
    ]);
    const attestation = new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge),
        attestationObject: b64(isoCBOR.encode(attestation as Parameters<typeof isoCBOR.encode>[0])),
        transports: ['internal'],
      },
    };
  }

  /** The answer of navigator.credentials.get to authentication options. */
  get(options: { challenge: string }) {
    this.counter += 1;
    const authData = this.header(0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signed = Buffer.concat([authData, sha256(isoBase64URL.toBuffer(clientDataJSON))]);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        authenticatorData: b64(authData),
        signature: b64(sign('sha256', signed, this.keys.privateKey)),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }

  private header(extraFlags: number): Buffer {
    const flags = USER_PRESENT | (this.verifiesUser ? USER_VERIFIED : 0) | extraFlags;
    return Buffer.concat([sha256(Buffer.from(this.rpId)), Buffer.from([flags]), uint32(this.counter)]);
  }

  private clientData(type: string, challenge: string): string {
    return b64(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
