-- A TTT Studio session at schema version 5, frozen: the migration test opens a copy of the
-- .sqlite made from this file and upgrades it to the current version. Regenerate the .sqlite with
-- tests/sessions/make_fixtures.sh; never edit the schema part (it is what version 5 was).
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE documents (
  id INTEGER PRIMARY KEY,
  content_hash TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL,
  byte_length INTEGER NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO documents VALUES(1,'3cb681d4bbb5f23a0d575829bddb2a83','demo/add.py',56,replace('def add(a, b):\n    return a - b  # BUG: should be a + b\n','\n',char(10)),'2024-05-01T10:00:00.000Z');
CREATE TABLE models (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  config_json TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (path, config_hash)
);
INSERT INTO models VALUES(1,'models/tiny','86dd70e97c988e8c0be076f5dfa5cee8','{"hidden_size":64,"num_attention_heads":4}','2024-05-01T10:00:00.000Z');
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  document_id INTEGER REFERENCES documents(id),
  model_id INTEGER REFERENCES models(id),
  method TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN
    ('queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted')),
  started_at TEXT,
  ended_at TEXT,
  wall_seconds REAL,
  flops_prefill REAL,
  flops_extra REAL,
  answer TEXT,
  output TEXT,
  score REAL,
  correct INTEGER,
  target_mass REAL,
  target_margin REAL,
  error TEXT,
  result_json TEXT
, prompt_tokens INTEGER, generated_tokens INTEGER);
INSERT INTO runs VALUES(1,1,1,'qttt','{"model_path":"models/tiny","device":"cpu","dtype":"f32","document_source":"demo/add.py","document_text":"def add(a, b):\n    return a - b  # BUG: should be a + b\n","question":"Which line has the bug?","task_description":"","target_chars":[{"start":19,"end":31}],"target_tokens":[],"reference_answers":["2"],"scorer":"exact","task":"code_bug","task_meta":{},"method":"qttt","params":{"steps":2,"lr":0.001},"seed":7,"max_answer_tokens":8,"budget_flops":null}','completed','2024-05-01T10:00:01.000Z','2024-05-01T10:00:03.500Z',2.5,1500000000.0,200000000.0,'2','Line 2',1.0,1,0.41999999999999998445,1.25,NULL,'{"status":"completed","output":"Line 2","answer":"2","flops":{"prefill":1500000000.0,"extra":200000000.0,"total":1700000000.0},"wall_seconds":2.5,"prompt_tokens":40,"generated_tokens":3,"details":{"steps_done":2},"score":1.0,"correct":true,"target_mass":0.42,"target_margin":1.25}',40,3);
INSERT INTO runs VALUES(2,1,1,'in_context','{"model_path":"models/tiny","device":"cpu","dtype":"f32","document_source":"demo/add.py","document_text":"def add(a, b):\n    return a - b  # BUG: should be a + b\n","question":"Which line has the bug?","task_description":"","target_chars":[{"start":19,"end":31}],"target_tokens":[],"reference_answers":["2"],"scorer":"exact","task":"code_bug","task_meta":{},"method":"in_context","params":{},"seed":7,"max_answer_tokens":8,"budget_flops":null}','failed','2024-05-01T10:00:04.000Z','2024-05-01T10:00:04.100Z',0.10000000000000000555,0.0,0.0,'','',NULL,NULL,NULL,NULL,'models/tiny/model.safetensors: tensor lm_head.weight is missing','{"status":"failed","output":"","answer":"","flops":{"prefill":0.0,"extra":0.0,"total":0.0},"wall_seconds":0.1,"prompt_tokens":0,"generated_tokens":0,"details":{},"score":null,"correct":null,"target_mass":null,"target_margin":null,"error":"models/tiny/model.safetensors: tensor lm_head.weight is missing"}',0,0);
INSERT INTO runs VALUES(3,1,1,'thinking','{"model_path":"models/tiny","device":"cpu","dtype":"f32","document_source":"demo/add.py","document_text":"def add(a, b):\n    return a - b  # BUG: should be a + b\n","question":"Which line has the bug?","task_description":"","target_chars":[{"start":19,"end":31}],"target_tokens":[],"reference_answers":["2"],"scorer":"exact","task":"code_bug","task_meta":{},"method":"thinking","params":{"max_think_tokens":16},"seed":7,"max_answer_tokens":8,"budget_flops":null}','running','2024-05-01T10:00:05.000Z',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE progress (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  stage TEXT NOT NULL,
  fraction REAL,
  done INTEGER,
  total INTEGER,
  eta_seconds REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO progress VALUES(1,0,'prefill',1.0,40,40,0.0);
CREATE TABLE step_metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  phase TEXT NOT NULL,
  step INTEGER NOT NULL,
  loss REAL,
  grad_norm REAL,
  learning_rate REAL,
  span_start INTEGER,
  span_length INTEGER,
  wall_seconds REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO step_metrics VALUES(1,1,'qttt',0,2.5,0.8000000000000000444,0.0010000000000000000208,4,16,0.5);
INSERT INTO step_metrics VALUES(1,2,'qttt',1,2.125,0.625,0.0010000000000000000208,20,16,1.0);
CREATE TABLE probes (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  phase TEXT NOT NULL,
  step INTEGER NOT NULL,
  deltas_json TEXT NOT NULL,
  epsilon REAL,
  context_length INTEGER,
  required_margin REAL,
  num_layers INTEGER,
  num_heads INTEGER,
  mean_mass REAL,
  mean_margin REAL,
  mean_mass_per_layer_json TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO probes VALUES(1,3,'qttt_step',1,'[0.5,1,2]',0.10000000000000000555,40,5.7699999999999995736,1,2,0.41999999999999998445,1.25,'[0.42]');
CREATE TABLE probe_stats (
  run_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  head_slot INTEGER NOT NULL,
  query_slot INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  head INTEGER NOT NULL,
  pos INTEGER NOT NULL,
  lse REAL,
  mass REAL,
  margin REAL,
  margin_best REAL,
  max_target_logit REAL,
  near_ties_json TEXT NOT NULL,
  dilution_bound_json TEXT NOT NULL, min_gap REAL, target_keys INTEGER NOT NULL DEFAULT -1, best_target_weight REAL, set_bound_json TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (run_id, seq, head_slot, query_slot),
  FOREIGN KEY (run_id, seq) REFERENCES probes(run_id, seq) ON DELETE CASCADE
) WITHOUT ROWID;
INSERT INTO probe_stats VALUES(1,3,0,0,0,0,39,3.25,0.5,1.5,0.75,2.5,'[1,2,3]','[0.6,0.4,0.3]',NULL,-1,NULL,'[]');
INSERT INTO probe_stats VALUES(1,3,1,0,0,1,39,4.0,0.34000000000000002442,1.0,-0.5,-1e999,'[0,0,1]','[1,1,0.8]',NULL,-1,NULL,'[]');
CREATE TABLE tokens (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  phase TEXT NOT NULL,
  branch INTEGER NOT NULL,
  token_index INTEGER NOT NULL,
  token_id INTEGER NOT NULL,
  text TEXT NOT NULL,
  logprob REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO tokens VALUES(1,4,'answer',0,0,17,'2',-0.125);
INSERT INTO tokens VALUES(3,0,'think',0,0,100,'Let',-0.5);
INSERT INTO tokens VALUES(3,1,'think',0,1,101,' me',-0.75);
CREATE TABLE fast_weight_losses (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  position INTEGER NOT NULL,
  loss_initial REAL,
  loss_before REAL,
  loss_after REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO fast_weight_losses VALUES(3,2,0,5,3.0,2.5,2.0);
CREATE TABLE routing (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  layer INTEGER NOT NULL,
  position INTEGER NOT NULL,
  loss REAL,
  threshold REAL,
  routed INTEGER NOT NULL,
  cache_occupancy INTEGER,
  evictions INTEGER, window_start INTEGER NOT NULL DEFAULT -1, window_end INTEGER NOT NULL DEFAULT -1, percentile REAL, inserted INTEGER NOT NULL DEFAULT 0, alpha REAL, evicted_json TEXT NOT NULL DEFAULT '[]', open_window INTEGER NOT NULL DEFAULT 0, document_start INTEGER NOT NULL DEFAULT -1, document_end INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO routing VALUES(3,3,0,5,2.5,2.25,1,12,0,-1,-1,NULL,0,NULL,'[]',0,-1,-1);
CREATE TABLE rewards (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  step INTEGER NOT NULL,
  position INTEGER NOT NULL,
  reward_phi REAL,
  reward_binary REAL,
  reward REAL,
  advantage REAL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO rewards VALUES(3,4,0,5,0.29999999999999998889,1.0,0.6500000000000000222,0.10000000000000000555);
CREATE TABLE logs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  level TEXT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO logs VALUES(1,5,'info','qTTT finished 2 steps');
CREATE TABLE artifacts (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  shape_json TEXT NOT NULL,
  meta_json TEXT NOT NULL,
  data BLOB NOT NULL,
  UNIQUE (run_id, seq)
);
INSERT INTO artifacts VALUES(1,6,'heatmap L0H0','heatmap','[2,3]','{"layer":0,"head":0}',X'0000003f0000803e0000003e0000803f0000004000008040');
CREATE INDEX runs_status ON runs(status);
CREATE INDEX runs_document ON runs(document_id, id);
CREATE INDEX step_metrics_phase_step ON step_metrics(run_id, phase, step);
CREATE INDEX probes_phase_step ON probes(run_id, phase, step);
CREATE INDEX tokens_phase_branch ON tokens(run_id, phase, branch, token_index);
PRAGMA user_version = 5;
PRAGMA application_id = 1414812755;
COMMIT;
