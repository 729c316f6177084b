import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";

export class FakeHtmlOutput {
  title = "";
  width = 0;
  height = 0;
  constructor(private content: string) {}
  getContent(): string {
    return this.content;
  }
  setContent(content: string): this {
    this.content = content;
    return this;
  }
  append(more: string): this {
    this.content += more;
    return this;
  }
  setTitle(title: string): this {
    this.title = title;
    return this;
  }
  getTitle(): string {
    return this.title;
  }
  setWidth(w: number): this {
    this.width = w;
    return this;
  }
  setHeight(h: number): this {
    this.height = h;
    return this;
  }
  setSandboxMode(): this {
    return this;
  }
  setXFrameOptionsMode(): this {
    return this;
  }
}

const escapeHtml = (v: unknown) => String(v).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Compiles Apps Script's template syntax — `<? code ?>`, `<?= escaped ?>`, `<?!= raw ?>` — into code
 * run in the script's own context, so scriptlets call the script's functions (e.g. include()).
 */
function compileTemplate(source: string): string {
  let code = "var __out = [];\n";
  let last = 0;
  for (const m of source.matchAll(/<\?(!=|=)?([\s\S]*?)\?>/g)) {
    code += `__out.push(${JSON.stringify(source.slice(last, m.index))});\n`;
    if (m[1] === "=") code += `__out.push(__escapeHtml(${m[2]}));\n`;
    else if (m[1] === "!=") code += `__out.push(String(${m[2]}));\n`;
    else code += `${m[2]}\n`;
    last = m.index + m[0].length;
  }
  code += `__out.push(${JSON.stringify(source.slice(last))});\nreturn __out.join("");`;
  return code;
}

/** HtmlService over the project's .html files; templates are evaluated in `context()`. */
export function fakeHtmlService(dir: string, context: () => vm.Context, spend: (ms: number) => void) {
  const read = (name: string) => {
    const file = join(dir, `${name}.html`);
    if (!/^[\w-]+$/.test(name) || !existsSync(file))
      throw new Error(`Exception: No HTML file named ${name} was found.`);
    return readFileSync(file, "utf8");
  };
  return {
    SandboxMode: { IFRAME: "IFRAME", NATIVE: "NATIVE" },
    XFrameOptionsMode: { ALLOWALL: "ALLOWALL", DEFAULT: "DEFAULT" },
    createHtmlOutput(html = "") {
      return new FakeHtmlOutput(String(html));
    },
    createHtmlOutputFromFile(name: string) {
      spend(5);
      return new FakeHtmlOutput(read(name));
    },
    createTemplateFromFile(name: string) {
      spend(5);
      const source = read(name);
      const template: Record<string, unknown> & { evaluate(): FakeHtmlOutput } = {
        evaluate() {
          const ctx = context();
          const vars = Object.fromEntries(Object.entries(template).filter(([k]) => k !== "evaluate"));
          const fn = vm.runInContext(
            `(function (__vars, __escapeHtml) { with (__vars) { ${compileTemplate(source)} } })`,
            ctx,
          );
          return new FakeHtmlOutput(fn(vars, escapeHtml) as string);
        },
      };
      return template;
    },
  };
}
