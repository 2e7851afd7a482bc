// Display width and `--format table` with Chinese names: every column starts at the same terminal column on every
// line, whatever script its neighbours are in (#37: padded by code units, a column after a Chinese name slid left).
import { displayWidth, padDisplay } from './display-width';
import { renderTable } from './table';

test('counts an East Asian wide character as two columns, a mark as none, the rest as one', () => {
  expect(displayWidth('Acme')).toBe(4);
  expect(displayWidth('游戏')).toBe(4);
  expect(displayWidth('Acme 游戏')).toBe(9);
  expect(displayWidth('演示应用')).toBe(8);
  expect(displayWidth('ＡＢ')).toBe(4); // fullwidth Latin
  expect(displayWidth('한국어')).toBe(6);
  expect(displayWidth('e\u0301')).toBe(1); // e and a combining acute
  expect(displayWidth('𠀀')).toBe(2); // Extension B: one code point, two UTF-16 units
  expect(padDisplay('游戏', 6)).toBe('游戏  ');
});

/** The terminal column where `needle` starts on `line`. */
const columnOf = (line: string, needle: string) => displayWidth(line.slice(0, line.indexOf(needle)));

test('a grid with Chinese names keeps every column aligned', () => {
  const out = renderTable({
    applications: [
      { applicationAnchor: 'acme-game', names: 'en-US=Acme Game, zh-CN=Acme 游戏', status: 'ACTIVE' },
      { applicationAnchor: 'demo-app', names: 'zh-CN=演示应用', status: 'SUSPENDED' },
      { applicationAnchor: '星际锻造', names: 'en-US=Star Forge', status: 'DISABLED' },
    ],
  });
  const lines = out.trimEnd().split('\n').slice(1);
  const [header, , ...rows] = lines as [string, string, ...string[]];
  const statusColumn = columnOf(header, 'status');
  const namesColumn = columnOf(header, 'names');
  const statuses = ['ACTIVE', 'SUSPENDED', 'DISABLED'];
  rows.forEach((row, i) => {
    expect(columnOf(row, statuses[i]!)).toBe(statusColumn);
    expect(columnOf(row, i === 2 ? 'en-US' : i === 1 ? 'zh-CN' : 'en-US')).toBe(namesColumn);
  });
});

test('a FIELD/VALUE grid with a Chinese field value stays aligned', () => {
  const out = renderTable({ account: { givenName: '明', familyName: '李', status: 'ACTIVE' } });
  const values = out.split('\n').filter((l) => /^(givenName|familyName|status) /.test(l));
  const starts = values.map((l) => displayWidth(l.slice(0, l.search(/ \S+$/) + 1)));
  expect(new Set(starts).size).toBe(1);
});
