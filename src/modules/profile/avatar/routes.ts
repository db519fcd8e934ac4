import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { currentUser } from '../../../platform/auth.js';
import {
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../platform/errors.js';
import { errors } from '../../../platform/http.js';
import { AVATAR_MAX_BYTES, AVATAR_SIZE } from './image.js';
import type { AvatarService } from './service.js';
import { AVATAR_KEY_PATTERN } from './storage.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

/** Multipart framing around a 2 MB file (boundaries, part headers) stays well under this. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * Multipart parsing is registered in this plugin's own scope, so no other route of the app accepts
 * multipart bodies.
 */
export const avatarRoutes: FastifyPluginAsyncTypebox<{ avatars: AvatarService }> = async (
  app,
  { avatars },
) => {
  await app.register(multipart, {
    limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 10, fieldSize: 1024, parts: 11 },
  });

  app.post(
    '/api/me/avatar',
    {
      onRequest: app.authenticate,
      bodyLimit: AVATAR_MAX_BYTES + MULTIPART_OVERHEAD_BYTES,
      schema: {
        tags,
        security,
        summary: 'Upload your avatar',
        description:
          'Send `multipart/form-data` with the image in the field `file`, at most 2 MB (413 ' +
          'PAYLOAD_TOO_LARGE beyond). The type is judged by the file bytes, not its name or content type: ' +
          'JPEG, PNG, WebP or GIF, anything else 415 UNSUPPORTED_MEDIA_TYPE. The image is re-encoded to a ' +
          `${AVATAR_SIZE}×${AVATAR_SIZE} WebP with all metadata stripped (an animated GIF keeps its first ` +
          'frame) and replaces the previous avatar. Returns its public URL, also shown in preferences and ' +
          'on the public profile. No file in `file`, or an unreadable image: 400.',
        consumes: ['multipart/form-data'],
        response: {
          200: Type.Object({
            avatarUrl: Type.String({ description: 'URL of the new avatar image, relative to the service' }),
            contentType: Type.String(),
          }),
          ...errors(400, 401, 413, 415),
        },
      },
    },
    async (request) => {
      const data = await readAvatarFile(request);
      return avatars.upload(currentUser(request).userId, data);
    },
  );

  app.get(
    '/api/avatars/:file',
    {
      schema: {
        tags,
        summary: 'An avatar image',
        description:
          'Public. Serves an uploaded avatar (image/webp). Each upload gets a new URL, so responses may be ' +
          'cached for a year.',
        params: Type.Object({ file: Type.String({ pattern: AVATAR_KEY_PATTERN }) }),
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The WebP image' }),
          ...errors(400, 404),
        },
      },
    },
    async (request, reply) => {
      const image = await avatars.read(request.params.file);
      if (!image) throw new NotFoundError('Avatar');
      return (
        reply
          .header('content-type', 'image/webp')
          .header('cache-control', 'public, max-age=31536000, immutable')
          // Profiles may be rendered by a web app on another origin.
          .header('cross-origin-resource-policy', 'cross-origin')
          .send(image)
      );
    },
  );
};

async function readAvatarFile(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) {
    throw new UnsupportedMediaTypeError(
      'Send the avatar as multipart/form-data with the image in the field "file"',
    );
  }
  try {
    const part = await request.file();
    if (part?.fieldname !== 'file') {
      throw new ValidationError('No avatar file in the request', [
        { field: 'file', message: 'is required: a multipart file field named "file"' },
      ]);
    }
    return await part.toBuffer();
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new PayloadTooLargeError('An avatar may be at most 2 MB');
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw new PayloadTooLargeError('Too many parts in the multipart body');
    throw new ValidationError(`Malformed multipart body: ${(error as Error).message}`, [
      { field: 'file', message: 'could not be read from the multipart body' },
    ]);
  }
}
