#include "distributed/agreement.hpp"

#include <climits>
#include <optional>
#include <string>

#include "siskin/error.hpp"

namespace siskin::distributed {

namespace {

// `text` from rank `root` to every rank.
void broadcast_text(std::string& text, int root, MPI_Comm comm) {
    long long size = static_cast<long long>(text.size());
    MPI_Bcast(&size, 1, MPI_LONG_LONG, root, comm);
    text.resize(static_cast<size_t>(size));
    MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, root, comm);
}

} // namespace

std::string& last_agreed_error() {
    static std::string what;
    return what;
}

bool every_rank_has(const Error& e) { return !last_agreed_error().empty() && last_agreed_error() == e.what(); }

void collectively(MPI_Comm comm, const std::function<void()>& work) {
    std::optional<Error> failure;
    try {
        work();
    } catch (const Error& e) {
        failure = e;
    } catch (const std::bad_alloc&) {
        failure = Error("out of memory", Error::Kind::User);
    }
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int mine = failure ? rank : INT_MAX, first = INT_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == INT_MAX) return;
    std::string message, file;
    long long fields[4] = {0, 0, 0, 0}; // kind, has location, line, column
    if (rank == first) {
        message = failure->message();
        fields[0] = static_cast<long long>(failure->kind());
        if (const auto& where = failure->where()) {
            fields[1] = 1;
            fields[2] = where->line;
            fields[3] = where->column;
            file = where->file;
        }
    }
    broadcast_text(message, first, comm);
    broadcast_text(file, first, comm);
    MPI_Bcast(fields, 4, MPI_LONG_LONG, first, comm);
    std::optional<SourceLocation> where;
    if (fields[1]) where = SourceLocation{file, fields[2], fields[3]};
    Error agreed(message, static_cast<Error::Kind>(fields[0]), where);
    last_agreed_error() = agreed.what();
    throw agreed;
}

} // namespace siskin::distributed
