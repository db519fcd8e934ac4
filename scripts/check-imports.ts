/**
 * The shape of src/'s imports, checked in CI: no file imports itself back through others; no two module folders
 * import each other, directly or round a longer circle; the exchange's core imports nothing outside it; and the
 * platform imports no module, but for the database's type, which assembles the modules' tables.
 */
import madge from 'madge';

const SCHEMA = 'platform/db/schema.ts';

const imports = await madge('src', { fileExtensions: ['ts'], tsConfig: 'tsconfig.json' });
const graph = imports.obj();
const problems: string[] = [];

for (const cycle of imports.circular()) problems.push(`import circle: ${[...cycle, cycle[0]].join(' > ')}`);

/** The module folder a file belongs to (modules/<area>), or null outside src/modules. */
const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(file)?.[1] ?? null;

const moduleEdges = new Map<string, Set<string>>();
for (const [file, imports] of Object.entries(graph)) {
  for (const imported of imports) {
    if (file.startsWith('exchange/') && !imported.startsWith('exchange/'))
      problems.push(`the exchange's core imports from outside it: ${file} > ${imported}`);
    if (file.startsWith('platform/') && moduleOf(imported) && file !== SCHEMA)
      problems.push(`the platform imports a module: ${file} > ${imported}`);
    const from = moduleOf(file);
    const to = moduleOf(imported);
    if (from && to && from !== to) moduleEdges.set(from, (moduleEdges.get(from) ?? new Set()).add(to));
  }
}

/** Module folders that reach themselves again (Tarjan's strongly connected components of more than one folder). */
function moduleCircles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

for (const circle of moduleCircles(moduleEdges))
  problems.push(`module folders that import each other round a circle: ${circle.join(', ')}`);

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`imports: ${Object.keys(graph).length} files, no circle, the core and the platform stand alone`);
