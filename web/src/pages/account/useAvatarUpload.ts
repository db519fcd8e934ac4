import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../api/client';
import { useAction } from '../../lib/hooks';

/** The image picked for the avatar, and its upload. */
export function useAvatarUpload(onUploaded: () => void) {
  const [file, setFile] = useState<File | null>(null);
  const upload = useAction(async () => {
    if (!file) return;
    const form = new FormData();
    form.append('file', file);
    // The document types the binary part as a string: the body names the file, the serializer sends the file.
    await typed(apiClient.POST('/api/me/avatar', { body: { file: file.name }, bodySerializer: () => form }));
    setFile(null);
    onUploaded();
  });
  return {
    file,
    setFile,
    pending: upload.pending,
    error: upload.error,
    submit: (event: FormEvent) => {
      event.preventDefault();
      void upload.run();
    },
  };
}
