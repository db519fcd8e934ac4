import { useId } from 'react';
import { Avatar } from '../../components/Avatar';
import { ErrorMessage } from '../../components/Status';
import { useAvatarUpload } from './useAvatarUpload';

export function AvatarUpload({
  avatarUrl,
  name,
  onUploaded,
}: {
  avatarUrl: string | null;
  name: string;
  onUploaded: () => void;
}) {
  const id = useId();
  const upload = useAvatarUpload(onUploaded);
  return (
    <form className="avatar-form" onSubmit={upload.submit}>
      <Avatar url={avatarUrl} name={name} size={72} />
      <div>
        <label htmlFor={id}>Avatar image</label>
        <input
          id={id}
          type="file"
          accept="image/jpeg,image/png,image/webp,image/gif"
          aria-describedby={`${id}-hint`}
          onChange={(event) => upload.setFile(event.target.files?.[0] ?? null)}
        />
        <p id={`${id}-hint`} className="muted small">
          JPEG, PNG, WebP or GIF, up to 2 MB.
        </p>
        <button type="submit" className="button small" disabled={!upload.file || upload.pending}>
          {upload.pending ? 'Uploading…' : 'Upload'}
        </button>
        <ErrorMessage error={upload.error} />
      </div>
    </form>
  );
}
