// The program behind testdata/demo.hwt (scripts/make-demo.sh records it): a
// tiny interpreter with recognisable layers for a flame graph. A lexer and a
// recursive-descent parser turn the script below into a syntax tree; a
// tree-walking evaluator runs it, looking every variable up by name in a
// hash table (the hot path: exec_block -> exec_statement -> eval_expr ->
// lookup_var -> hash_name); at the end the variables are sorted by value
// with a recursive merge sort and printed.
#include <stdio.h>
#include <string.h>

static const char kScript[] =
    "let a = 1;\n"
    "let b = 1;\n"
    "let n = 0;\n"
    "let sum = 0;\n"
    "repeat 60 {\n"
    "  let t = (a + b) % 1000;\n"
    "  let a = b;\n"
    "  let b = t;\n"
    "  let n = n + 1;\n"
    "  let sum = (sum + t * n) % 100000;\n"
    "}\n"
    "let x = 7;\n"
    "repeat 40 {\n"
    "  let x = (x * 31 + 11) % 9973;\n"
    "  let sum = (sum + x) % 100000;\n"
    "}\n"
    "print sum;\n"
    "print a;\n";

// ---- lexer ----

enum token { T_END, T_NUM, T_NAME, T_LET, T_PRINT, T_REPEAT, T_PUNCT };

struct lexer {
  const char* p;
  enum token kind;
  long num;
  char name[16];
  char punct;
};

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_letter(char c) { return c >= 'a' && c <= 'z'; }

static void next_token(struct lexer* lx) {
  while (*lx->p == ' ' || *lx->p == '\n') lx->p++;
  char c = *lx->p;
  if (c == 0) {
    lx->kind = T_END;
  } else if (is_digit(c)) {
    long v = 0;
    while (is_digit(*lx->p)) v = v * 10 + (*lx->p++ - '0');
    lx->kind = T_NUM;
    lx->num = v;
  } else if (is_letter(c)) {
    int n = 0;
    while (is_letter(*lx->p) || is_digit(*lx->p)) {
      if (n < 15) lx->name[n++] = *lx->p;
      lx->p++;
    }
    lx->name[n] = 0;
    lx->kind = strcmp(lx->name, "let") == 0      ? T_LET
               : strcmp(lx->name, "print") == 0  ? T_PRINT
               : strcmp(lx->name, "repeat") == 0 ? T_REPEAT
                                                 : T_NAME;
  } else {
    lx->kind = T_PUNCT;
    lx->punct = c;
    lx->p++;
  }
}

static void expect(struct lexer* lx, char punct) {
  if (lx->kind == T_PUNCT && lx->punct == punct) next_token(lx);
}

// ---- syntax tree ----

enum node_kind {
  N_NUM,
  N_VAR,
  N_ADD,
  N_SUB,
  N_MUL,
  N_MOD,
  N_LET,
  N_PRINT,
  N_REPEAT
};

struct node {
  enum node_kind kind;
  long value;
  char name[16];
  struct node* a;
  struct node* b;
  struct node* next;  // the next statement of a block
};

static struct node pool[256];
static int pool_used;

static struct node* new_node(enum node_kind kind) {
  struct node* n = &pool[pool_used++];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  return n;
}

// ---- variables: a hash table by name ----

struct var {
  char name[16];
  long value;
  struct var* next;
};

static struct var vars[32];
static int var_count;
static struct var* buckets[8];

static unsigned hash_name(const char* s) {
  unsigned h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h;
}

static struct var* lookup_var(const char* name) {
  struct var** bucket = &buckets[hash_name(name) % 8];
  for (struct var* v = *bucket; v != NULL; v = v->next) {
    if (strcmp(v->name, name) == 0) return v;
  }
  struct var* v = &vars[var_count++];
  strcpy(v->name, name);
  v->next = *bucket;
  *bucket = v;
  return v;
}

// ---- parser ----

static struct node* parse_expr(struct lexer* lx);

static struct node* parse_factor(struct lexer* lx) {
  struct node* n;
  if (lx->kind == T_NUM) {
    n = new_node(N_NUM);
    n->value = lx->num;
    next_token(lx);
  } else if (lx->kind == T_NAME) {
    n = new_node(N_VAR);
    strcpy(n->name, lx->name);
    next_token(lx);
  } else {
    expect(lx, '(');
    n = parse_expr(lx);
    expect(lx, ')');
  }
  return n;
}

static struct node* parse_term(struct lexer* lx) {
  struct node* left = parse_factor(lx);
  while (lx->kind == T_PUNCT && (lx->punct == '*' || lx->punct == '%')) {
    struct node* n = new_node(lx->punct == '*' ? N_MUL : N_MOD);
    next_token(lx);
    n->a = left;
    n->b = parse_factor(lx);
    left = n;
  }
  return left;
}

static struct node* parse_expr(struct lexer* lx) {
  struct node* left = parse_term(lx);
  while (lx->kind == T_PUNCT && (lx->punct == '+' || lx->punct == '-')) {
    struct node* n = new_node(lx->punct == '+' ? N_ADD : N_SUB);
    next_token(lx);
    n->a = left;
    n->b = parse_term(lx);
    left = n;
  }
  return left;
}

static struct node* parse_block(struct lexer* lx);

static struct node* parse_statement(struct lexer* lx) {
  struct node* n;
  if (lx->kind == T_LET) {
    next_token(lx);
    n = new_node(N_LET);
    strcpy(n->name, lx->name);
    next_token(lx);
    expect(lx, '=');
    n->a = parse_expr(lx);
  } else if (lx->kind == T_PRINT) {
    next_token(lx);
    n = new_node(N_PRINT);
    n->a = parse_expr(lx);
  } else {
    next_token(lx);  // repeat
    n = new_node(N_REPEAT);
    n->a = parse_expr(lx);
    expect(lx, '{');
    n->b = parse_block(lx);
    expect(lx, '}');
    return n;
  }
  expect(lx, ';');
  return n;
}

static struct node* parse_block(struct lexer* lx) {
  struct node* first = NULL;
  struct node** tail = &first;
  while (lx->kind != T_END && !(lx->kind == T_PUNCT && lx->punct == '}')) {
    *tail = parse_statement(lx);
    tail = &(*tail)->next;
  }
  return first;
}

// ---- evaluator ----

static long eval_expr(const struct node* n) {
  switch (n->kind) {
    case N_NUM:
      return n->value;
    case N_VAR:
      return lookup_var(n->name)->value;
    case N_ADD:
      return eval_expr(n->a) + eval_expr(n->b);
    case N_SUB:
      return eval_expr(n->a) - eval_expr(n->b);
    case N_MUL:
      return eval_expr(n->a) * eval_expr(n->b);
    default:
      return eval_expr(n->a) % eval_expr(n->b);
  }
}

static void exec_block(const struct node* n);

static void exec_statement(const struct node* n) {
  switch (n->kind) {
    case N_LET:
      lookup_var(n->name)->value = eval_expr(n->a);
      break;
    case N_PRINT:
      printf("%ld\n", eval_expr(n->a));
      break;
    default:
      for (long i = eval_expr(n->a); i > 0; --i) exec_block(n->b);
      break;
  }
}

static void exec_block(const struct node* n) {
  for (; n != NULL; n = n->next) exec_statement(n);
}

// ---- report: the variables sorted by value ----

static void merge(struct var** v, struct var** tmp, int mid, int n) {
  int i = 0, j = mid, k = 0;
  while (i < mid && j < n)
    tmp[k++] = v[i]->value <= v[j]->value ? v[i++] : v[j++];
  while (i < mid) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

static void merge_sort(struct var** v, struct var** tmp, int n) {
  if (n < 2) return;
  merge_sort(v, tmp, n / 2);
  merge_sort(v + n / 2, tmp, n - n / 2);
  merge(v, tmp, n / 2, n);
}

static void report(void) {
  struct var* sorted[32];
  struct var* tmp[32];
  for (int i = 0; i < var_count; ++i) sorted[i] = &vars[i];
  merge_sort(sorted, tmp, var_count);
  for (int i = 0; i < var_count; ++i) {
    printf("%s=%ld\n", sorted[i]->name, sorted[i]->value);
  }
}

int main(void) {
  struct lexer lx = {kScript, T_END, 0, "", 0};
  next_token(&lx);
  struct node* program = parse_block(&lx);
  exec_block(program);
  report();
  return 0;
}
