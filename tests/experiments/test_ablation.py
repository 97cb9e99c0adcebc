"""The ablation probe: PPO's settings after the novelty (or in pre-training too) changed, and
nothing else; records labelled apart; bad requests refused in one line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from nesyworld.experiments.probe.ablation import (
    AblationError,
    ablation_specs,
    changed_ppo,
    changed_transfer,
    check_forbidden,
    check_transfer,
    main,
    pre_checkpoint_template,
    run_ablation,
    shared_checkpoint_template,
)
from nesyworld.experiments.protocol.agents import (
    RLOverrides,
    RLProtocolAgent,
    make_protocol_agent,
    post_novelty_ppo,
    pre_novelty_ppo,
    protocol_transfer,
)
from nesyworld.experiments.protocol.config import load_experiment
from nesyworld.hybrid.baselines.rl_config import (
    DEFAULT_TRANSFER,
    PAPER_POST_NOVELTY_PPO,
    PAPER_PRE_NOVELTY_PPO,
    PAPER_TRANSFER,
)
from nesyworld.hybrid.seeding import RunSeeds
from nesyworld.learning import PPOConfig
from nesyworld.learning.training.checkpoint import load_checkpoint
from nesyworld.world.envs import NesyGridEnv


def test_only_the_post_novelty_ppo_changes() -> None:
    changed = dataclasses.replace(PAPER_POST_NOVELTY_PPO, max_grad_norm=None)
    for name, own in (("transfer_rl_unmasked", PAPER_POST_NOVELTY_PPO),
                      ("transfer_rl+icm", PPOConfig())):
        assert post_novelty_ppo(name) == own
        plain = make_protocol_agent(name, NesyGridEnv("pogostick"), "pogostick",
                                    RunSeeds(0), 30, 100)
        ablated = make_protocol_agent(name, NesyGridEnv("pogostick"), "pogostick",
                                      RunSeeds(0), 30, 100,
                                      overrides=RLOverrides(post_ppo=changed))
        assert isinstance(plain, RLProtocolAgent) and isinstance(ablated, RLProtocolAgent)
        assert plain.post_config.ppo == own and ablated.post_config.ppo == changed
        # pre-training, and so the shared checkpoint, is untouched
        assert ablated.agent.config == plain.agent.config
        assert dataclasses.replace(ablated.post_config, ppo=own) == plain.post_config
    assert make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"), "pogostick",
                               RunSeeds(0), 30, 100).agent.config.ppo == PAPER_PRE_NOVELTY_PPO


def config_file(tmp_path: Path, pretrained: str) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(f"""name: tiny
domain: pogostick
agents: [transfer_rl_unmasked, rapidlearn]
novelties: [axe]
seeds: 1
protocol:
  pre_steps: 200
  post_steps: 200
  epoch_steps: 100
  eval_episodes: 1
  post_eval_episodes: 1
  max_episode_steps: 20
  pretrained: {pretrained}
""", encoding="utf-8")
    return path


def test_requests_the_experiment_cannot_run_are_refused(tmp_path: Path) -> None:
    config = str(config_file(tmp_path, str(tmp_path / "pre" / "{agent}_{seed}.pt")))
    with pytest.raises(AblationError, match="no agent 'rl_unmasked'; expected one of"):
        ablation_specs(config, "rl_unmasked", "axe", [0])
    with pytest.raises(AblationError, match="no novelty 'fire'; expected one of axe"):
        ablation_specs(config, "transfer_rl_unmasked", "fire", [0])
    with pytest.raises(AblationError, match="is not an RL agent"):
        ablation_specs(config, "rapidlearn", "axe", [0])
    # an ablation compares with runs already made: it never pre-trains
    with pytest.raises(AblationError, match="no pre-trained checkpoint of transfer_rl_unmasked "
                                            "seed 0"):
        ablation_specs(config, "transfer_rl_unmasked", "axe", [0])
    assert main(["--config", config, "--agent", "transfer_rl_unmasked", "--novelty", "axe",
                 "--seeds", "0", "--set", "nope=1", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert not (tmp_path / "o.jsonl").exists()
    without = config_file(tmp_path, "x").read_text(encoding="utf-8")
    no_checkpoints = tmp_path / "no_checkpoints.yaml"
    no_checkpoints.write_text(without.replace("  pretrained: x\n", ""), encoding="utf-8")
    for pre_changes in (None, {"reward_scale": 1}):
        with pytest.raises(AblationError, match=r"protocol\.pretrained is empty; expected"):
            ablation_specs(str(no_checkpoints), "transfer_rl_unmasked", "axe", [0],
                           pre_changes=pre_changes)


def test_a_run_from_its_checkpoint_is_recorded_labelled(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.run import run_protocol

    config = str(config_file(tmp_path, str(tmp_path / "pre" / "{agent}_{seed}.pt")))
    # the experiment's own run makes the checkpoint
    [first] = load_experiment(config).runs()[:1]
    assert run_protocol(first)["status"] == "ok"
    specs = ablation_specs(config, "transfer_rl_unmasked", "axe", [0], post_steps=100)
    assert specs[0].protocol.name == "custom" and specs[0].protocol.post_steps == 100
    ppo, changes = changed_ppo(post_novelty_ppo("transfer_rl_unmasked"),
                               ["max_grad_norm=none"])
    out = tmp_path / "ablation.jsonl"
    [record] = run_ablation(specs, RLOverrides(post_ppo=ppo), out, echo=False, changes=changes)
    assert record["status"] == "ok", record["error"]
    assert record["ablation"] == {"post_ppo": {"max_grad_norm": None}}
    assert record["spec"]["protocol"]["name"] == "custom"
    assert [json.loads(line)["key"] for line in out.read_text().splitlines()] == [record["key"]]
    assert any(p["phase"] == "post" for p in record["curve"])


def test_every_seed_may_fine_tune_from_one_seeds_checkpoint(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.pretraining import pretrained_checkpoint
    from nesyworld.experiments.protocol.run import run_protocol

    assert shared_checkpoint_template("p/{agent}_{seed}.pt", 3) == "p/{agent}_3.pt"
    assert shared_checkpoint_template("p/{agent}_{seed:02d}.pt", 3) == "p/{agent}_03.pt"
    with pytest.raises(AblationError, match=r"has no \{seed\} field"):
        shared_checkpoint_template("p/{agent}.pt", 3)
    with pytest.raises(AblationError, match="fields other than"):
        shared_checkpoint_template("p/{agent}_{seed}_{run}.pt", 3)
    config = str(config_file(tmp_path, str(tmp_path / "pre" / "{agent}_{seed}.pt")))
    # seed 0's checkpoint is not there yet, and a run of seed 5 must not make it
    for pre_stop in (False, True):
        with pytest.raises(AblationError, match="no pre-trained checkpoint of "
                           "transfer_rl_unmasked seed 0;"):
            ablation_specs(config, "transfer_rl_unmasked", "axe", [5], checkpoint_seed=0,
                           pre_stop=pre_stop)
    [first] = load_experiment(config).runs()[:1]
    assert run_protocol(first)["status"] == "ok"
    specs = ablation_specs(config, "transfer_rl_unmasked", "axe", [5, 6], post_steps=100,
                           checkpoint_seed=0)
    assert [pretrained_checkpoint(s) for s in specs] == \
        [tmp_path / "pre" / "transfer_rl_unmasked_0.pt"] * 2
    before = (tmp_path / "pre" / "transfer_rl_unmasked_0.pt").read_bytes()
    records = run_ablation(specs, RLOverrides(post_ppo=post_novelty_ppo(
        "transfer_rl_unmasked")), tmp_path / "o.jsonl", echo=False, checkpoint_seed=0)
    assert [r["status"] for r in records] == ["ok", "ok"], records[0].get("error")
    assert [r["spec"]["seed"] for r in records] == [5, 6]
    assert all(r["ablation"]["checkpoint_seed"] == 0 for r in records)
    # the runs loaded seed 0's pre-training and made no checkpoint of their own seeds
    assert (tmp_path / "pre" / "transfer_rl_unmasked_0.pt").read_bytes() == before
    assert not list((tmp_path / "pre").glob("transfer_rl_unmasked_[56]*"))
    # and each run still trained after the novelty
    assert all(any(p["phase"] == "post" for p in r["curve"]) for r in records)
    assert main(["--config", config, "--agent", "transfer_rl_unmasked", "--novelty", "axe",
                 "--seeds", "5", "--checkpoint-seed", "4", "--out",
                 str(tmp_path / "none.jsonl")]) == 2
    assert not (tmp_path / "none.jsonl").exists()


def test_a_changed_pre_training_changes_only_the_pre_training_ppo() -> None:
    changed = dataclasses.replace(PAPER_PRE_NOVELTY_PPO, reward_scale=1.0)
    assert pre_novelty_ppo("transfer_rl_unmasked") == PAPER_PRE_NOVELTY_PPO
    plain = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"), "pogostick",
                                RunSeeds(0), 30, 100)
    ablated = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"),
                                  "pogostick", RunSeeds(0), 30, 100,
                                  overrides=RLOverrides(pre_ppo=changed))
    assert isinstance(plain, RLProtocolAgent) and isinstance(ablated, RLProtocolAgent)
    assert ablated.agent.config.ppo == changed
    assert dataclasses.replace(ablated.agent.config, ppo=PAPER_PRE_NOVELTY_PPO) == \
        plain.agent.config
    assert ablated.post_config == plain.post_config


def test_pre_trained_checkpoints_of_a_change_are_named_apart() -> None:
    template = "results/pre/{agent}_{seed}.pt"
    assert pre_checkpoint_template(template, {"reward_scale": 1.0}) == \
        "results/pre/{agent}_{seed}.pre-reward_scale-1.0.pt"
    assert pre_checkpoint_template(template, {"max_grad_norm": None, "lr": 0.001}) == \
        "results/pre/{agent}_{seed}.pre-lr-0.001.max_grad_norm-none.pt"
    # no value can reach outside the folder or into the template's fields
    named = pre_checkpoint_template(template, {"ent_coef": "../{x}/y"})
    assert named.startswith("results/pre/{agent}_{seed}.pre-ent_coef-") and "/" not in \
        named.removeprefix("results/pre/") and "{x}" not in named


def test_a_changed_pre_training_pre_trains_its_own_checkpoint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nesyworld.experiments.protocol.run import run_protocol

    template = str(tmp_path / "pre" / "{agent}_{seed}.pt")
    config = str(config_file(tmp_path, template))
    [first] = load_experiment(config).runs()[:1]
    assert run_protocol(first)["status"] == "ok"
    own = tmp_path / "pre" / "transfer_rl_unmasked_0.pt"
    before = own.read_bytes()
    pre_ppo, pre_changes = changed_ppo(pre_novelty_ppo("transfer_rl_unmasked"),
                                       ["reward_scale=1"], "--pre-set")
    specs = ablation_specs(config, "transfer_rl_unmasked", "axe", [0], post_steps=100,
                           pre_changes=pre_changes)
    assert specs[0].protocol.pretrained == pre_checkpoint_template(template, pre_changes)
    out = tmp_path / "ablation.jsonl"
    capsys.readouterr()
    overrides = RLOverrides(post_ppo=post_novelty_ppo("transfer_rl_unmasked"), pre_ppo=pre_ppo)
    [record] = run_ablation(specs, overrides, out, pre_changes=pre_changes)
    assert record["status"] == "ok", record["error"]
    # progress counts the steps after the novelty from the novelty, not from the start
    after = [int(line.split()[2].replace(",", "")) for line in
             capsys.readouterr().out.splitlines() if "after the novelty" in line]
    assert after and after[-1] <= 100 + 2 * 20 < record["novelty"]["env_steps"]
    assert record["ablation"] == {"post_ppo": {}, "pre_ppo": {"reward_scale": 1}}
    assert any(p["phase"] == "pre" for p in record["curve"])
    made = tmp_path / "pre" / "transfer_rl_unmasked_0.pre-reward_scale-1.pt"
    assert made.is_file() and own.read_bytes() == before
    assert load_checkpoint(made).ppo.reward_scale == 1  # pre-trained as changed
    # the experiment's checkpoint, made at the paper's scale, is refused to such a run
    wrong = dataclasses.replace(specs[0], protocol=first.protocol)
    refused = run_protocol(wrong, overrides=RLOverrides(pre_ppo=pre_ppo))
    assert refused["status"] == "error" and "other PPO settings" in refused["error"]


def test_forbidden_actions_reach_both_phases_and_name_the_pre_training() -> None:
    plain = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"), "pogostick",
                                RunSeeds(0), 30, 100)
    kept = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"), "pogostick",
                               RunSeeds(0), 30, 100,
                               overrides=RLOverrides(forbidden=("use", "give_up", "use")))
    assert isinstance(plain, RLProtocolAgent) and isinstance(kept, RLProtocolAgent)
    assert plain.agent.config.forbidden == ("give_up",)
    assert kept.agent.config.forbidden == kept.post_config.forbidden == ("give_up", "use")
    assert dataclasses.replace(kept.agent.config, forbidden=("give_up",)) == \
        plain.agent.config
    # named apart by count and digest, the same whatever the order or repeats
    template = "results/pre/{agent}_{seed}.pt"
    one = pre_checkpoint_template(template, {}, ["use", "craft_tree_tap"])
    assert one == pre_checkpoint_template(template, {}, ["craft_tree_tap", "use", "use"])
    assert one.startswith("results/pre/{agent}_{seed}.pre-forbid-2-") and one.endswith(".pt")
    assert one != pre_checkpoint_template(template, {}, ["use"])
    assert pre_checkpoint_template(template, {"lr": 0.1}, ["use"]).startswith(
        "results/pre/{agent}_{seed}.pre-lr-0.1.forbid-1-")


def test_a_misspelt_forbidden_action_is_refused(tmp_path: Path) -> None:
    config = str(config_file(tmp_path, str(tmp_path / "pre" / "{agent}_{seed}.pt")))
    [spec] = ablation_specs(config, "transfer_rl_unmasked", "axe", [0], forbidden=["use"])
    check_forbidden(spec, ["use", "select_axe"])  # select_axe: the novelty's own action
    with pytest.raises(AblationError, match="--forbid usee: not an action of pogostick or "
                                            "of it after axe; expected one of") as err:
        check_forbidden(spec, ["use", "usee"])
    assert "\n" not in str(err.value)
    assert main(["--config", config, "--agent", "transfer_rl_unmasked", "--novelty", "axe",
                 "--seeds", "0", "--forbid", "usee", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert not (tmp_path / "o.jsonl").exists()


def test_a_run_with_forbidden_actions_pre_trains_its_own_checkpoint(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.pretraining import PRETRAINING_KEY
    from nesyworld.experiments.protocol.run import run_protocol

    template = str(tmp_path / "pre" / "{agent}_{seed}.pt")
    config = str(config_file(tmp_path, template))
    [first] = load_experiment(config).runs()[:1]
    assert run_protocol(first)["status"] == "ok"
    own = tmp_path / "pre" / "transfer_rl_unmasked_0.pt"
    assert "forbidden" not in load_checkpoint(own).metadata[PRETRAINING_KEY]
    specs = ablation_specs(config, "transfer_rl_unmasked", "axe", [0], post_steps=100,
                           forbidden=["use", "craft_tree_tap"])
    overrides = RLOverrides(post_ppo=post_novelty_ppo("transfer_rl_unmasked"),
                            forbidden=("use", "craft_tree_tap"))
    [record] = run_ablation(specs, overrides, tmp_path / "ablation.jsonl", echo=False)
    assert record["status"] == "ok", record["error"]
    assert record["ablation"] == {"post_ppo": {}, "forbidden": ["craft_tree_tap", "use"]}
    made = Path(specs[0].protocol.pretrained.format(agent="transfer_rl_unmasked", seed=0))
    assert made.is_file() and made != own
    assert load_checkpoint(made).metadata[PRETRAINING_KEY]["forbidden"] == [
        "craft_tree_tap", "give_up", "use"]
    # the experiment's checkpoint, which had every action, is refused to such a run
    wrong = dataclasses.replace(specs[0], protocol=first.protocol)
    refused = run_protocol(wrong, overrides=RLOverrides(forbidden=("use", "craft_tree_tap")))
    assert refused["status"] == "error" and "pre-trained with" in refused["error"]


def test_networks_sized_in_pre_training_carry_over_the_novelty(tmp_path: Path) -> None:
    from nesyworld.world.envs import NoveltyInjector

    template = str(tmp_path / "pre" / "{agent}_{seed}.pt")
    config = str(config_file(tmp_path, template))
    pre_ppo, pre_changes = changed_ppo(pre_novelty_ppo("transfer_rl_unmasked"), [
        "hidden_sizes=[16]", "critic_hidden_sizes=[24, 8]"], "--pre-set")
    specs = ablation_specs(config, "transfer_rl_unmasked", "axe", [0], post_steps=100,
                           pre_changes=pre_changes)
    out = tmp_path / "a.jsonl"
    overrides = RLOverrides(post_ppo=post_novelty_ppo("transfer_rl_unmasked"), pre_ppo=pre_ppo)
    [record] = run_ablation(specs, overrides, out, echo=False, pre_changes=pre_changes)
    assert record["status"] == "ok", record["error"]
    assert any(p["phase"] == "post" for p in record["curve"])
    assert json.loads(out.read_text())["ablation"]["pre_ppo"] == {
        "hidden_sizes": [16], "critic_hidden_sizes": [24, 8]}
    path = specs[0].protocol.pretrained.format(agent="transfer_rl_unmasked", seed=0)
    made = load_checkpoint(path)
    assert (made.ppo.hidden_sizes, made.ppo.critic_hidden_sizes) == ((16,), (24, 8))
    assert [tuple(v.shape) for v in made.critic_state.values()] == [
        (24, made.obs_dim), (24,), (8, 24), (8,), (1, 8), (1,)]
    # after the novelty the grown networks keep those sizes
    agent = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"), "pogostick",
                                RunSeeds(0), 20, 100, pretrained=path,
                                overrides=RLOverrides(pre_ppo=pre_ppo))
    assert isinstance(agent, RLProtocolAgent)
    agent.inject(NoveltyInjector(NesyGridEnv("pogostick"), ["axe"]))
    grown = agent.agent.checkpoint
    assert (grown.ppo.hidden_sizes, grown.ppo.critic_sizes) == ((16,), (24, 8))
    assert tuple(grown.critic_state["net.model.2.weight"].shape) == (8, 24)
    assert grown.obs_dim >= made.obs_dim


def test_a_pre_training_stopped_at_convergence_is_its_own(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.pretraining import PRETRAINING_KEY
    from nesyworld.experiments.protocol.run import run_protocol

    template = str(tmp_path / "pre" / "{agent}_{seed}.pt")
    config = config_file(tmp_path, template)
    # a test every point passes: the criterion holds at the first epoch of two
    config.write_text(config.read_text() + "  success_threshold: 0.0\n"
                      "  reward_threshold: -1000000\n  eta: 1\n  nu: 0\n", encoding="utf-8")
    [first] = load_experiment(str(config)).runs()[:1]
    whole = run_protocol(first)
    assert whole["status"] == "ok", whole["error"]
    out = tmp_path / "stop.jsonl"
    assert main(["--config", str(config), "--agent", "transfer_rl_unmasked", "--novelty",
                 "axe", "--seeds", "0", "--pre-stop", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["ablation"] == {"post_ppo": {}, "pre_stop": True}
    stopped = [p for p in record["curve"] if p["phase"] == "pre"]
    trained = [p for p in whole["curve"] if p["phase"] == "pre"]
    assert [p["epoch"] for p in trained] == [1, 2] and trained[0]["converged"]
    assert [p["epoch"] for p in stopped] == [1] and stopped[0]["converged"]
    made = tmp_path / "pre" / "transfer_rl_unmasked_0.pre-stop.pt"
    assert load_checkpoint(made).metadata[PRETRAINING_KEY]["full_budget"] is False
    assert pre_checkpoint_template(template, {"lr": 0.1}, ["use"], stop=True).endswith(
        ".stop.pt")
    # the experiment's checkpoint, trained to the budget, is refused to such a run
    [spec] = ablation_specs(str(config), "transfer_rl_unmasked", "axe", [0], pre_stop=True)
    assert not spec.protocol.pre_full_budget
    refused = run_protocol(dataclasses.replace(
        spec, protocol=dataclasses.replace(spec.protocol, pretrained=template)))
    assert refused["status"] == "error" and "pre-trained with" in refused["error"]


def test_a_pre_training_stopped_by_novelgyms_reward_rule_is_its_own(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.pretraining import PRETRAINING_KEY

    config = config_file(tmp_path, str(tmp_path / "pre" / "{agent}_{seed}.pt"))
    common = ["--config", str(config), "--agent", "transfer_rl_unmasked", "--novelty", "axe",
              "--seeds", "0", "--pre-stop-epochs", "1", "--out"]
    met, never = tmp_path / "met.jsonl", tmp_path / "never.jsonl"
    assert main([*common, str(met), "--pre-stop-reward", "-1000000"]) == 0
    assert main([*common, str(never), "--pre-stop-reward", "1e9"]) == 0
    record = json.loads(met.read_text())
    assert record["ablation"] == {"post_ppo": {}, "pre_stop_reward": [-1000000.0, 1]}
    assert record["spec"]["protocol"]["pre_stop_reward"] == -1000000.0
    stopped = [p for p in record["curve"] if p["phase"] == "pre"]
    assert [p["epoch"] for p in stopped] == [1] and stopped[0]["converged"]
    # a reward no evaluation reaches trains the whole budget, and never counts as converged
    trained = [p for p in json.loads(never.read_text())["curve"] if p["phase"] == "pre"]
    assert [p["epoch"] for p in trained] == [1, 2] and not any(p["converged"] for p in trained)
    made = tmp_path / "pre" / "transfer_rl_unmasked_0.pre-stop-reward--1000000.0x1.pt"
    how = load_checkpoint(made).metadata[PRETRAINING_KEY]
    assert how["stop_reward"] == [-1000000.0, 1] and how["full_budget"] is False
    assert (tmp_path / "pre" / "transfer_rl_unmasked_0.pre-stop-reward-1000000000.0x1.pt"
            ).exists()


def test_a_pre_training_without_plan_shaping_is_its_own(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.pretraining import PRETRAINING_KEY
    from nesyworld.experiments.protocol.run import run_protocol

    unshaped = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"),
                                   "pogostick", RunSeeds(0), 30, 100,
                                   overrides=RLOverrides(pre_shaping=False))
    shaped = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"),
                                 "pogostick", RunSeeds(0), 30, 100)
    assert isinstance(unshaped, RLProtocolAgent) and isinstance(shaped, RLProtocolAgent)
    assert unshaped.agent.shaping is None and shaped.agent.shaping is not None
    template = str(tmp_path / "pre" / "{agent}_{seed}.pt")
    config = str(config_file(tmp_path, template))
    out = tmp_path / "unshaped.jsonl"
    assert main(["--config", config, "--agent", "transfer_rl_unmasked", "--novelty", "axe",
                 "--seeds", "0", "--no-pre-shaping", "--post-steps", "100",
                 "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["ablation"] == {"post_ppo": {}, "pre_shaping": False}
    made = tmp_path / "pre" / "transfer_rl_unmasked_0.pre-unshaped.pt"
    assert load_checkpoint(made).metadata[PRETRAINING_KEY]["shaping"] is False
    assert not (tmp_path / "pre" / "transfer_rl_unmasked_0.pt").exists()
    # that checkpoint, put where the experiment's belongs, is refused to a shaped run
    [first] = load_experiment(config).runs()[:1]
    (tmp_path / "pre" / "transfer_rl_unmasked_0.pt").write_bytes(made.read_bytes())
    refused = run_protocol(first)
    assert refused["status"] == "error" and "'shaping': False" in refused["error"]


def test_the_transfer_after_the_novelty_may_be_changed(tmp_path: Path) -> None:
    from nesyworld.experiments.protocol.run import run_protocol

    assert protocol_transfer("transfer_rl_unmasked") == PAPER_TRANSFER
    assert protocol_transfer("transfer_rl") == DEFAULT_TRANSFER
    changed, changes = changed_transfer(PAPER_TRANSFER, [
        "new_actions_from=rotate_left", "keep_curiosity=false", "new_weight_scale=0.5"])
    assert changes == {"new_actions_from": "rotate_left", "keep_curiosity": False,
                       "new_weight_scale": 0.5}
    assert changed == dataclasses.replace(PAPER_TRANSFER, **changes)
    assert changed_transfer(PAPER_TRANSFER, ["new_actions_from="])[0].new_actions_from == ""
    for bad, message in (("moments=some", "--transfer: TransferConfig.moments"),
                         ("keep_curiosity=3", "expected bool"),
                         ("hidden_sizes=[4]", "expected FIELD=VALUE with FIELD one of")):
        with pytest.raises(AblationError, match=message):
            changed_transfer(PAPER_TRANSFER, [bad])
    template = str(tmp_path / "pre" / "{agent}_{seed}.pt")
    config = str(config_file(tmp_path, template))
    [first] = load_experiment(config).runs()[:1]
    assert run_protocol(first)["status"] == "ok"
    [spec] = ablation_specs(config, "transfer_rl_unmasked", "axe", [0], post_steps=100)
    check_transfer(spec, changed)
    with pytest.raises(AblationError, match="new_actions_from=rotate_lft: not an action of "
                                            "pogostick; expected one of"):
        check_transfer(spec, dataclasses.replace(changed, new_actions_from="rotate_lft"))
    agent = make_protocol_agent("transfer_rl_unmasked", NesyGridEnv("pogostick"), "pogostick",
                                RunSeeds(0), 20, 100,
                                overrides=RLOverrides(transfer=changed))
    assert isinstance(agent, RLProtocolAgent) and agent.transfer_config == changed
    out = tmp_path / "t.jsonl"
    assert main(["--config", config, "--agent", "transfer_rl_unmasked", "--novelty", "axe",
                 "--seeds", "0", "--post-steps", "100", "--transfer",
                 "new_actions_from=rotate_left", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["ablation"] == {"post_ppo": {}, "transfer": {"new_actions_from": "rotate_left"}}
