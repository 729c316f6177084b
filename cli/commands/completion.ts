import { basename } from "node:path";
import type { Command, Option } from "commander";
import { listBuiltinPipelines } from "../../engine/define/pipeline-file.js";
import { printLine } from "../output.js";

const SHELLS = ["bash", "zsh"] as const;

/** Commands whose arguments are pipelines: built-in names are offered, and files. */
const TAKES_PIPELINES = new Set(["run", "plan"]);

/**
 * `skillsync completion bash|zsh`: a completion script made from the command tree itself, so it
 * never lists a command or flag that does not exist. Static: a Tab costs no Node start.
 */
export function registerCompletionCommand(program: Command): void {
  program
    .command("completion")
    .description(
      "print a shell completion script for `skillsync` and `npx skillsync`: save it once (npx skillsync completion bash > ~/.skillsync-completion.bash, or zsh) and source that file from your shell's rc file",
    )
    .addArgument(program.createArgument("<shell>", "bash or zsh").choices(SHELLS))
    .action((shell: (typeof SHELLS)[number]) => printLine(completionScript(program, shell)));
}

function completionScript(program: Command, shell: (typeof SHELLS)[number]): string {
  const bash = bashScript(program);
  // zsh completes through bash's functions once bashcompinit is loaded: one script to keep right.
  return shell === "zsh" ? `autoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}

function bashScript(program: Command): string {
  const pipelines = listBuiltinPipelines().map((f) => basename(f, ".yaml"));
  const cases = program.commands.map((c) => {
    const words = [...c.commands.map((s) => s.name()), ...flagsOf(c)];
    if (TAKES_PIPELINES.has(c.name())) words.push(...pipelines);
    const files = TAKES_PIPELINES.has(c.name()) ? ' files="-f"' : "";
    return `    ${c.name()}) words="${words.join(" ")}";${files} ;;`;
  });
  const top = [...program.commands.map((c) => c.name()), ...flagsOf(program)].join(" ");
  return [
    "# skillsync completion (bash): skillsync completion bash",
    "_skillsync() {",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template
    '  local cur="${COMP_WORDS[COMP_CWORD]}" cmd="" words="" files="" skip="" w i first=1',
    `  local valued=" ${valuedFlags(program).join(" ")} "`,
    ...npxPrefix(),
    "  # The command is the first word that is neither a flag nor a global flag's value.",
    "  for ((i = first; i < COMP_CWORD; i++)); do",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template
    '    w="${COMP_WORDS[i]}"',
    '    if [[ -n "$skip" ]]; then skip=""; continue; fi',
    '    case "$w" in -*) [[ "$valued" == *" $w "* ]] && skip=1 ;; *) cmd="$w"; break ;; esac',
    "  done",
    '  case "$cmd" in',
    `    "") words="${top}" ;;`,
    ...cases,
    "  esac",
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '  if [[ -n "$files" && "$cur" != -* ]]; then COMPREPLY+=($(compgen -f -- "$cur")); fi',
    "}",
    "complete -F _skillsync skillsync",
    "complete -F _skillsync npx",
  ].join("\n");
}

/**
 * `npx skillsync …` (how README runs it from the project folder) completes like `skillsync …`: the
 * words start one later. Any other `npx` command gets file names, as bash gives without a rule.
 */
function npxPrefix(): string[] {
  return [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template
    '  if [[ "${COMP_WORDS[0]##*/}" == npx ]]; then',
    '    if ((COMP_CWORD == 1)); then COMPREPLY=($(compgen -W skillsync -- "$cur") $(compgen -f -- "$cur")); return; fi',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template
    '    if [[ "${COMP_WORDS[1]}" != skillsync ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi',
    "    first=2",
    "  fi",
  ];
}

const optionsOf = (c: Command) => (c as Command & { options: readonly Option[] }).options;

function flagsOf(c: Command): string[] {
  return [
    ...optionsOf(c)
      .flatMap((o) => [o.short, o.long])
      .filter((f): f is string => !!f),
    "--help",
  ];
}

/** Global flags that take the next word as their value (`--log-format json`). */
function valuedFlags(program: Command): string[] {
  return optionsOf(program)
    .filter((o) => o.required || o.optional)
    .flatMap((o) => [o.short, o.long])
    .filter((f): f is string => !!f);
}
