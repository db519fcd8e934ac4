export function Avatar({ url, name, size = 40 }: { url: string | null; name: string; size?: number }) {
  if (url) {
    return <img className="avatar" src={url} alt="" width={size} height={size} />;
  }
  return (
    <span className="avatar avatar-initial" aria-hidden="true" style={{ width: size, height: size }}>
      {name.charAt(0).toUpperCase()}
    </span>
  );
}
