// `siskin run ... --distributed` (distributed_run.hpp). Without the distributed layer (CMake
// option SISKIN_MPI off) the option is an error that says so.
#include "distributed_run.hpp"

#include "siskin/error.hpp"

#ifndef SISKIN_MPI

namespace siskin::cli {
bool distributed_available() { return false; }
void run_distributed(const DistributedRunOptions&) {
    throw Error("--distributed: this siskin was built without MPI (configure with -DSISKIN_MPI=ON "
                "where libopenmpi-dev is installed)",
                Error::Kind::Unsupported);
}
} // namespace siskin::cli

#else

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arguments.hpp"
#include "error_line.hpp"
#include "siskin/distributed.hpp"
#include "siskin/io.hpp"
#include "siskin/ir/text.hpp"

namespace siskin::cli {

namespace {

using namespace siskin::distributed;

// Everything the run reads: its matrices and vectors, each rank its part.
struct DistributedInputs {
    std::map<std::string, DistributedMatrix> matrices;
    std::map<std::string, DistributedVector> vectors;
};

// One rank's counters as --comm-stats writes them (src/distributed/README.md defines each field).
nlohmann::json rank_stats(int rank, const DistributedProgram& p, const DistributedInputs& in) {
    nlohmann::json j;
    j["rank"] = rank;
    auto matrix_fields = [](const DistributedMatrix& a) {
        nlohmann::json m;
        m["rows"] = a.rows().local_size();
        m["row_begin"] = a.rows().begin();
        m["nnz_diag"] = a.diagonal().stored();
        m["nnz_offdiag"] = a.off_diagonal().stored();
        m["halo_columns"] = static_cast<int64_t>(a.column_map().size());
        return m;
    };
    const DistributedMatrix& first = in.matrices.at(p.matrices.front());
    j.update(matrix_fields(first));
    for (const auto& [name, a] : in.matrices) j["matrices"][name] = matrix_fields(a);
    for (const auto& [operation, c] : comm_stats()) {
        nlohmann::json& o = j["operations"][operation];
        o["calls"] = c.calls;
        o["messages_sent"] = c.messages_sent;
        o["bytes_sent"] = c.bytes_sent;
        o["messages_received"] = c.messages_received;
        o["bytes_received"] = c.bytes_received;
    }
    return j;
}

// Every rank's text on rank 0 (raw MPI: not an exchange the counters describe).
std::vector<std::string> gather_texts(const std::string& mine, MPI_Comm comm) {
    int p = 0, rank = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    int size = static_cast<int>(mine.size());
    std::vector<int> sizes(static_cast<size_t>(p)), offsets(static_cast<size_t>(p));
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
    int total = 0;
    for (int r = 0; r < p; ++r) offsets[static_cast<size_t>(r)] = total, total += sizes[static_cast<size_t>(r)];
    std::string all(rank == 0 ? static_cast<size_t>(total) : 0, '\0');
    MPI_Gatherv(mine.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, comm);
    std::vector<std::string> texts;
    if (rank == 0)
        for (int r = 0; r < p; ++r)
            texts.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                                       static_cast<size_t>(sizes[static_cast<size_t>(r)])));
    return texts;
}

void run_on_ranks(const DistributedRunOptions& o, MPI_Comm comm) {
    int rank = 0, ranks = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    // Every rank checks the command line alike; collectively() makes a failure one Error that
    // every rank has.
    ir::Program program;
    DistributedProgram kind;
    std::map<std::string, TensorArgument> input_args;
    std::map<std::string, std::string> output_paths;
    std::map<std::string, std::optional<Format>> output_formats;
    TensorOptions tensor_options;
    collectively(comm, [&] {
        if (o.exec.interpret) throw Error("--distributed runs compiled kernels; it does not go with --interpret");
        if (!o.exec.dump_after.empty()) throw Error("--dump-after does not go with --distributed");
        program = ir::parse_program(program_text(o.program));
        kind = classify_program(program);
        auto arity = access_arity(program);
        tensor_options = parse_tensor_options(arity, o.types, o.fills);
        add_declared_fills(program, tensor_options);
        for (const auto& name : {kind.output})
            if (tensor_options.fills.count(name) || tensor_options.types.count(name))
                throw Error(fmt::format("--distributed: the output {} takes the type and fill the "
                                        "program gives it (no --fill or --type for it)",
                                        name),
                            Error::Kind::Unsupported);
        for (const auto& text : o.inputs) {
            TensorArgument arg = parse_tensor_argument(text, "-i");
            dimensions_of(arity, arg.name, "-i");
            if (arg.name == kind.output)
                throw Error(fmt::format("-i {}: {} is written by the program, so it is an output", text, arg.name));
            if (input_args.count(arg.name)) throw Error(fmt::format("-i {}: {} is already given", text, arg.name));
            input_args.emplace(arg.name, arg);
        }
        for (const auto& [name, n] : arity)
            if (name != kind.output && !input_args.count(name))
                throw Error(fmt::format("the program reads tensor '{}': give it with -i {}=FILE", name, name));
        for (const auto& text : o.outputs) {
            TensorArgument arg = parse_tensor_argument(text, "-o");
            int ndims = dimensions_of(arity, arg.name, "-o");
            if (arg.name != kind.output) throw Error(fmt::format("-o {}: the program does not write {}", text, arg.name));
            if (output_paths.count(arg.name)) throw Error(fmt::format("-o {}: {} is already written", text, arg.name));
            output_paths[arg.name] = arg.path;
            output_formats[arg.name] = arg.format ? std::optional(Format::parse(*arg.format, ndims)) : std::nullopt;
        }
        for (const auto& name : o.prints)
            if (name != kind.output)
                throw Error(fmt::format("--print {}: under --distributed, --print names the output ({})",
                                        name, kind.output));
        if (output_paths.empty() && o.prints.empty() && o.exec.stats_path.empty() && o.comm_stats_path.empty())
            throw Error(fmt::format("the program's output {} goes nowhere: give -o NAME=FILE, --print "
                                    "NAME, --stats FILE or --comm-stats FILE",
                                    kind.output));
    });

    // Matrices first (a vector is partitioned as its matrix's columns), each rank its part.
    DistributedInputs in;
    auto read_options = [&](const std::string& name) {
        ReadOptions r;
        if (tensor_options.fills.count(name)) r.fill = tensor_options.fills.at(name);
        r.type = tensor_options.type_of(name);
        return r;
    };
    for (const auto& name : kind.matrices) {
        const TensorArgument& arg = input_args.at(name);
        DistributeOptions options;
        collectively(comm, [&] {
            if (arg.format) options.local_format = Format::parse(*arg.format, 2);
        });
        options.read = read_options(name);
        options.split = o.balanced ? RowSplit::BalancedEntries : RowSplit::Even;
        // The first matrix decides the partition: SpGEMM's B takes A's columns as its rows, an
        // elementwise operand A's rows.
        if (!in.matrices.empty()) {
            const DistributedMatrix& first = in.matrices.at(kind.matrices.front());
            options.rows = kind.kind == ProgramKind::Spgemm ? first.columns() : first.rows();
        }
        in.matrices.emplace(name, DistributedMatrix::read(arg.path, comm, options));
    }
    if (kind.kind == ProgramKind::Spmv) {
        const TensorArgument& arg = input_args.at(kind.vector);
        in.vectors.emplace(kind.vector, DistributedVector::read(arg.path, in.matrices.at(kind.matrices[0]).columns(),
                                                                read_options(kind.vector)));
    }

    // The runs, timed on every rank; a run's time is the slowest rank's.
    std::vector<double> times_ms;
    std::optional<DistributedVector> vector_result;
    std::optional<DistributedMatrix> matrix_result;
    std::optional<Tensor> scalar_result;
    const std::string& name = kind.output;
    std::optional<Format> format = output_formats.count(name) ? output_formats.at(name) : std::nullopt;
    std::map<std::string, const DistributedMatrix*> matrices;
    for (const auto& [m, a] : in.matrices) matrices[m] = &a;
    for (int r = 0; r < o.exec.repeat; ++r) {
        MPI_Barrier(comm);
        auto start = std::chrono::steady_clock::now();
        switch (kind.kind) {
        case ProgramKind::Spmv:
            vector_result = spmv(in.matrices.at(kind.matrices[0]), in.vectors.at(kind.vector));
            break;
        case ProgramKind::Spgemm:
            matrix_result = spgemm(in.matrices.at(kind.matrices[0]), in.matrices.at(kind.matrices[1]), format);
            break;
        case ProgramKind::Elementwise: matrix_result = elementwise(program, matrices, format); break;
        case ProgramKind::RowReduction: vector_result = reduce_rows(program, matrices); break;
        case ProgramKind::FullReduction: scalar_result = reduce(program, matrices); break;
        }
        double mine = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(), slowest = 0;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        times_ms.push_back(slowest);
    }

    // Rank 0 gathers and writes, all or nothing, as a serial run writes.
    std::optional<Tensor> result;
    if (vector_result) result = vector_result->gather(0);
    if (matrix_result) result = matrix_result->gather(0);
    if (scalar_result && rank == 0) result = scalar_result;
    std::vector<std::string> stats_texts;
    if (!o.comm_stats_path.empty()) stats_texts = gather_texts(rank_stats(rank, kind, in).dump(), comm);
    collectively(comm, [&] {
        if (rank != 0) return;
        if (format && result) result = result->convert(*format);
        OutputFiles files;
        WriteOptions write_options;
        write_options.fill_comment = o.exec.fill_comment;
        for (const auto& [output, path] : output_paths) {
            // As a serial run: an output whose format followed the data is written dense to a
            // .mtx file when its fill is not zero (Matrix Market holds no fill).
            bool dense = std::all_of(result->format().levels().begin(), result->format().levels().end(),
                                     [](const LevelSpec& l) { return l.kind == "dense"; });
            if (!format && path.ends_with(".mtx") && !dense && !result->fill().same_value(Scalar::zero(result->type())))
                files.write_tensor(result->convert(Format::dense(result->ndims())), path, write_options);
            else
                files.write_tensor(*result, path, write_options);
        }
        if (!o.exec.stats_path.empty()) {
            std::vector<double> sorted = times_ms;
            std::sort(sorted.begin(), sorted.end());
            size_t n = sorted.size();
            nlohmann::json stats;
            stats["engine"] = "distributed";
            stats["ranks"] = ranks;
            stats["runs"] = n;
            stats["median_ms"] = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            stats["min_ms"] = sorted.front();
            stats["times_ms"] = times_ms;
            stats["stored"][name] = result->stored();
            stats["format"][name] = result->format().to_string();
            files.write_text(o.exec.stats_path, stats.dump(2) + "\n");
        }
        if (!o.comm_stats_path.empty()) {
            nlohmann::json all = nlohmann::json::array();
            for (const auto& text : stats_texts) all.push_back(nlohmann::json::parse(text));
            files.write_text(o.comm_stats_path, all.dump(2) + "\n");
        }
        files.commit();
        for (const auto& p : o.prints)
            if (p == name) std::cout << p << " = " << result->to_string() << "\n";
    });
}

} // namespace

bool distributed_available() { return true; }

void run_distributed(const DistributedRunOptions& o) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(nullptr, nullptr);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    try {
        run_on_ranks(o, comm);
    } catch (const Error& e) {
        if (!every_rank_has(e)) {
            // Only this rank failed: the others may wait for it in a collective call.
            print_error("(rank " + std::to_string(rank) + ") " + e.what());
            MPI_Abort(comm, 1);
        }
        // Rank 0 prints before any rank may exit: mpiexec stops the job at the first rank that
        // exits with status 1, which could otherwise be before rank 0 had written the message.
        if (rank == 0) print_error(e.what());
        MPI_Barrier(comm);
        if (!initialized) MPI_Finalize();
        throw DistributedRunFailed{};
    }
    if (!initialized) MPI_Finalize();
}

} // namespace siskin::cli

#endif
