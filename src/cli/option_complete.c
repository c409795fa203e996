/* The shell completions from the option table (option_complete.h). */
#include "option_complete.h"
#include "option_table.h"

#include <string.h>

/* The shell function's name: _apsp, _apsp_mpi. */
static void function_name(unsigned command, char *out, size_t size) {
    snprintf(out, size, "_%s", option_command_name(command));
    for (char *p = out; *p; p++)
        *p = *p == '-' ? '_' : *p;
}

/* The option's words as "a b c" (option_choices' "a|b|c"). Returns 0 for an option without. */
static int words(const option_spec *s, char *out, size_t size) {
    const char *choices = option_choices(s);
    snprintf(out, size, "%s", choices ? choices : "");
    for (char *p = out; *p; p++)
        *p = *p == '|' ? ' ' : *p;
    return choices != NULL;
}

/* The bash case arm that completes one option's value into COMPREPLY, or nothing. */
static void bash_value_arm(FILE *out, const option_spec *s) {
    char list[200];
    int listed = words(s, list, sizeof list);
    if (s->value == VALUE_FILE)
        fprintf(out,
                "        --%s) compopt -o filenames 2>/dev/null; "
                "COMPREPLY=($(compgen -f -- \"$value\")) ;;\n",
                s->name);
    else if (s->value == VALUE_DIR)
        fprintf(out,
                "        --%s) compopt -o filenames 2>/dev/null; "
                "COMPREPLY=($(compgen -d -W \"%s\" -- \"$value\")) ;;\n",
                s->name, list);
    else if (listed)
        fprintf(out, "        --%s) COMPREPLY=($(compgen -W \"%s\" -- \"$value\")) ;;\n", s->name,
                list);
}

void complete_bash(FILE *out, unsigned command) {
    char name[32];
    function_name(command, name, sizeof name);
    fprintf(out,
            "# bash completion for %s, generated from src/cli/option_table.c by "
            "apsp-option-docs.\n%s() {\n",
            option_command_name(command), name);
    fputs("    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local option= value= prefix=\n"
          "    COMPREPLY=()\n"
          "    if [[ $cur == --*=* ]]; then # '=' is not a word break: the reply keeps --NAME=\n"
          "        option=${cur%%=*} value=${cur#*=} prefix=${cur%%=*}=\n"
          "    elif [[ $cur == = ]]; then # --NAME= split at the '='\n"
          "        option=$prev\n"
          "    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then\n"
          "        option=${COMP_WORDS[COMP_CWORD-2]} value=$cur\n",
          out);
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));)
        if (s->code < 256 && option_needs_value(s))
            fprintf(out, "    elif [[ $prev == -%c ]]; then\n        option=--%s value=$cur\n",
                    s->code, s->name);
    fputs("    fi\n    if [[ -n $option ]]; then\n        case $option in\n", out);
    i = 0;
    for (const option_spec *s; (s = option_next(command, &i));)
        bash_value_arm(out, s);
    fputs("        esac\n"
          "        [[ -n $prefix ]] && COMPREPLY=(\"${COMPREPLY[@]/#/$prefix}\")\n"
          "        return 0\n    fi\n"
          "    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"",
          out);
    i = 0;
    const char *space = "";
    for (const option_spec *s; (s = option_next(command, &i));) {
        char letter[4] = "";
        if (s->code < 256)
            snprintf(letter, sizeof letter, "-%c ", s->code);
        fprintf(out, "%s%s--%s%s", space, letter, s->name, option_needs_value(s) ? "=" : "");
        space = " ";
    }
    fputs("\" -- \"$cur\"))\n"
          "        [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace "
          "2>/dev/null\n"
          "        return 0\n    fi\n"
          "    compopt -o filenames 2>/dev/null\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\")) # INPUT and OUTPUT\n}\n",
          out);
    fprintf(out, "complete -F %s %s\n", name, option_command_name(command));
}

/* A zsh _arguments description: ']' and '\'' escaped (the spec is single-quoted). */
static void zsh_text(FILE *out, const char *text) {
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else if (*p == ']' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p != '`')
            fputc(*p, out);
    }
}

/* The value's part of a zsh spec: ":message:action". */
static void zsh_action(FILE *out, const option_spec *s) {
    char list[200];
    int listed = words(s, list, sizeof list);
    const char *colons = s->value == VALUE_OPTIONAL ? "::" : ":";
    if (s->value == VALUE_NONE)
        return;
    if (s->value == VALUE_FILE)
        fprintf(out, "%sfile:_files", colons);
    else if (s->value == VALUE_DIR)
        fprintf(out, "%sdirectory:{_files -/; compadd %s}", colons, list);
    else if (listed)
        fprintf(out, "%s%s:(%s)", colons, s->arg, list);
    else
        fprintf(out, "%s%s: ", colons, s->arg);
}

void complete_zsh(FILE *out, unsigned command) {
    fprintf(out,
            "#compdef %s\n# zsh completion for %s, generated from src/cli/option_table.c "
            "by apsp-option-docs.\n_arguments -s -S \\\n",
            option_command_name(command), option_command_name(command));
    size_t i = 0;
    for (const option_spec *s; (s = option_next(command, &i));) {
        const char *after = option_needs_value(s) ? "=" : s->value == VALUE_OPTIONAL ? "=-" : "";
        for (int form = s->code < 256 ? 0 : 1; form < 2; form++) {
            fputs("    '", out);
            if (s->code < 256)
                fprintf(out, "(-%c --%s)", s->code, s->name);
            if (form == 0)
                fprintf(out, "-%c%s", s->code, option_needs_value(s) ? "+" : "");
            else
                fprintf(out, "--%s%s", s->name, after);
            fputc('[', out);
            zsh_text(out, option_brief(s, command));
            fputc(']', out);
            if (form == 1 || s->value != VALUE_OPTIONAL)
                zsh_action(out, s);
            fputs("' \\\n", out);
        }
    }
    fputs("    '1:INPUT:_files' \\\n    '2:OUTPUT:_files'\n", out);
}
