import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';

/**
 * The WebAuthn JSON of passkeys (the Level 3 `toJSON()` forms, as @simplewebauthn/browser sends and takes them):
 * the options the service hands out and the authenticator's answers it checks. Binary fields are base64url.
 */

const B64 = Type.String({ maxLength: 16_384, pattern: '^[A-Za-z0-9_-]*$', description: 'base64url' });
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 });
const Descriptor = Type.Object({
  id: B64,
  type: Type.String({ description: 'public-key' }),
  transports: Type.Optional(Transports),
});
const Extensions = Type.Object({}, { additionalProperties: true });

export const RegistrationOptions = Type.Object(
  {
    challenge: B64,
    rp: Type.Object({ name: Type.String(), id: Type.Optional(Type.String()) }),
    user: Type.Object({ id: B64, name: Type.String(), displayName: Type.String() }),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() })),
    timeout: Type.Optional(Type.Integer()),
    excludeCredentials: Type.Optional(Type.Array(Descriptor)),
    authenticatorSelection: Type.Optional(
      Type.Object({
        authenticatorAttachment: Type.Optional(Type.String()),
        residentKey: Type.Optional(Type.String()),
        requireResidentKey: Type.Optional(Type.Boolean()),
        userVerification: Type.Optional(Type.String()),
      }),
    ),
    hints: Type.Optional(Type.Array(Type.String())),
    attestation: Type.Optional(Type.String()),
    extensions: Type.Optional(Extensions),
  },
  { description: 'Options for navigator.credentials.create (PublicKeyCredentialCreationOptionsJSON)' },
);

export const AuthenticationOptions = Type.Object(
  {
    challenge: B64,
    timeout: Type.Optional(Type.Integer()),
    rpId: Type.Optional(Type.String()),
    allowCredentials: Type.Optional(Type.Array(Descriptor)),
    userVerification: Type.Optional(Type.String()),
    hints: Type.Optional(Type.Array(Type.String())),
    extensions: Type.Optional(Extensions),
  },
  { description: 'Options for navigator.credentials.get (PublicKeyCredentialRequestOptionsJSON)' },
);

const credentialFields = {
  id: B64,
  rawId: B64,
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  clientExtensionResults: Extensions,
};

export const RegistrationResponse = Type.Object(
  {
    ...credentialFields,
    response: Type.Object({
      clientDataJSON: B64,
      attestationObject: B64,
      authenticatorData: Type.Optional(B64),
      transports: Type.Optional(Transports),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(B64),
    }),
  },
  { description: 'What navigator.credentials.create answered (RegistrationResponseJSON)' },
);

export const AuthenticationResponse = Type.Object(
  {
    ...credentialFields,
    response: Type.Object({
      clientDataJSON: B64,
      authenticatorData: B64,
      signature: B64,
      userHandle: Type.Optional(B64),
    }),
  },
  { description: 'What navigator.credentials.get answered (AuthenticationResponseJSON)' },
);

export const Passkey = Type.Object({
  id: IdString,
  name: Type.String(),
  transports: Type.Array(Type.String(), {
    description: 'How the browser reaches it (internal, usb, hybrid...)',
  }),
  backedUp: Type.Boolean({ description: 'Whether it is synced to other devices (a passkey manager)' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
