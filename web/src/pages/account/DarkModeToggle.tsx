import { ErrorMessage } from '../../components/Status';
import { useAction } from '../../lib/hooks';
import { useTheme } from '../../theme';

export function DarkModeToggle() {
  const { theme, setTheme } = useTheme();
  const darkMode = useAction((dark: boolean) => setTheme(dark ? 'dark' : 'light'));
  return (
    <div className="field">
      <label className="check">
        <input
          type="checkbox"
          checked={theme === 'dark'}
          onChange={(event) => void darkMode.run(event.target.checked)}
        />
        Dark mode
      </label>
      <ErrorMessage error={darkMode.error} />
    </div>
  );
}
