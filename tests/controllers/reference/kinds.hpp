// FROZEN REFERENCE (2026-11-22): a verbatim copy of controllers/kinds.hpp before the reconcile
// performance work, moved to namespace t9k::controllers::reference. Used only by
// equivalence_tests.cpp to prove the optimised controllers give identical results. Do not edit.
// The three controllers of batch.tensorstack.dev/v1beta1 (spec §3, §4, §5).
#pragma once

#include "controllers/controller.hpp"

namespace t9k::controllers::reference {

class GenericJobController final : public Controller {
 public:
  std::string_view api_version() const override;
  std::string_view kind() const override;
  ReconcileResult reconcile(const ReconcileInput& input) const override;
};

class PyTorchTrainingJobController final : public Controller {
 public:
  std::string_view api_version() const override;
  std::string_view kind() const override;
  ReconcileResult reconcile(const ReconcileInput& input) const override;
};

class DeepSpeedJobController final : public Controller {
 public:
  std::string_view api_version() const override;
  std::string_view kind() const override;
  ReconcileResult reconcile(const ReconcileInput& input) const override;
};

}  // namespace t9k::controllers::reference
